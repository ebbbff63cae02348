import type { Knex } from 'knex';

/** A statement's `$n` text as Knex's `?` text and the order its values bind in, made once per text. */
interface Positional {
  readonly text: string;
  /** For each `?` of `text`, the index of its value in the `$n` values. */
  readonly order: readonly number[];
}

const positional = new Map<string, Positional>();
/** Texts converted and kept; past this many (never reached by the fixed statements) each is converted again. */
const POSITIONAL_KEPT = 512;

function positionalOf(text: string): Positional {
  const known = positional.get(text);
  if (known !== undefined) return known;
  const order: number[] = [];
  // A literal `?` (a jsonb operator) is escaped so that Knex leaves it as it is.
  const converted = text.replace(/\?/g, '\\?').replace(/\$(\d+)/g, (_, n: string) => {
    order.push(Number(n) - 1);
    return '?';
  });
  const made = { text: converted, order };
  if (positional.size < POSITIONAL_KEPT) positional.set(text, made);
  return made;
}

/**
 * Runs one SQL statement (`$1`-style parameters) through Knex's public `raw`, on the pool or in
 * the transaction `db` is, and returns its rows. With `name`, node-postgres prepares the statement
 * once per connection (Knex hands a raw query's `options` to the driver as they are) and
 * afterwards sends only its parameters, so PostgreSQL plans it once; PGlite, one in-process
 * connection, ignores the name. Use it for fixed statements on hot paths; the query builder stays
 * the tool for everything else.
 */
export async function rows<R>(db: Knex | Knex.Transaction, text: string, values: readonly unknown[], name?: string): Promise<R[]> {
  const { text: sql, order } = positionalOf(text);
  const bindings = order.map((i) => values[i] ?? null) as Knex.RawBinding[];
  const raw = db.raw(sql, bindings);
  const result = (await (name === undefined ? raw : raw.options({ name }))) as { rows: R[] };
  return result.rows;
}

/**
 * A value as a JSON parameter (`$n::jsonb`), by name. A string holding half of a surrogate pair
 * is sent as UTF-8 with U+FFFD in its place when it is a parameter of its own; JSON would carry
 * it as an escape that PostgreSQL's JSON refuses. So it is made the same U+FFFD here
 * (JSON.stringify escapes only such halves, so the slower pass runs only for them).
 */
export function jsonParam(value: unknown): string {
  const json = JSON.stringify(value);
  if (!HALF_SURROGATE_ESCAPE.test(json)) return json;
  return JSON.stringify(value, (_key, v: unknown) => (typeof v === 'string' ? v.toWellFormed() : v));
}
const HALF_SURROGATE_ESCAPE = /\\ud[89a-f][0-9a-f]{2}/i;
