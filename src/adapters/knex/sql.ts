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
