import { once } from 'node:events';
import { createReadStream, createWriteStream } from 'node:fs';
import { link, rm, stat } from 'node:fs/promises';
import { createInterface } from 'node:readline';
import { pipeline } from 'node:stream/promises';
import { PassThrough } from 'node:stream';
import { createGunzip, createGzip } from 'node:zlib';
import type { Knex } from 'knex';
import { applyFunctions } from './schema/functions/index.js';
import { migrationSource } from './migrations/index.js';

/**
 * Logical backups of the service's database, the same on PostgreSQL and embedded PGlite.
 *
 * A backup is a gzip of text lines: `H <header JSON>`, then for each table `T <name>` followed by
 * one `R <row JSON>` per row (PostgreSQL's own `row_to_json`), and last `E <trailer JSON>` with the
 * counts, so a cut-off file is refused rather than half restored. Every row is read in one
 * REPEATABLE READ, READ ONLY transaction: the copy is the database as it stood at one instant,
 * every write committed before that instant and none after, while the service goes on serving
 * (readers never block writers in PostgreSQL). Restoring runs the migrations the backup was made
 * with, loads the rows in one transaction, then applies the migrations added since.
 */

export const BACKUP_FORMAT = 'partner-booking-wallet-backup';
const BACKUP_VERSION = 1;
/** Knex's own bookkeeping: recorded as the header's migration list instead. */
const NOT_COPIED = new Set(['knex_migrations', 'knex_migrations_lock']);
const FETCH_ROWS = 1_000;
const INSERT_ROWS = 500;

export interface BackupSummary {
  readonly file: string;
  readonly startedAt: string;
  readonly tables: number;
  readonly rows: number;
  readonly bytes: number;
  readonly migrations: number;
}

export interface RestoreSummary {
  readonly file: string;
  readonly backupStartedAt: string;
  readonly tables: number;
  readonly rows: number;
  /** Migrations applied after the rows were loaded (added to the code since the backup). */
  readonly migrationsApplied: number;
}

interface Header {
  readonly format: string;
  readonly version: number;
  readonly startedAt: string;
  readonly migrations: readonly string[];
}

/** A backup or restore that cannot be done, with a message for the operator. */
export class BackupError extends Error {
  override readonly name = 'BackupError';
}

const quoted = (name: string): string => `"${name.replace(/"/g, '""')}"`;

/** The service's tables in the current schema, in name order. */
async function tablesOf(knex: Knex | Knex.Transaction): Promise<string[]> {
  const rows = (await knex.raw(`SELECT tablename FROM pg_tables WHERE schemaname = current_schema() ORDER BY tablename`)) as {
    rows: { tablename: string }[];
  };
  return rows.rows.map((r) => r.tablename);
}

/**
 * Writes a consistent copy of the database to `file` (created with mode 0600: the copy holds
 * every hash and sealed secret the database does). The file appears under its name only when
 * complete; an existing file is never overwritten.
 */
export async function writeBackup(knex: Knex, file: string): Promise<BackupSummary> {
  if (await exists(file)) throw new BackupError(`${file} already exists; choose a new file name`);
  const partial = `${file}.partial-${process.pid}`;
  const gzip = createGzip();
  const sink = createWriteStream(partial, { flags: 'wx', mode: 0o600 });
  const written = pipeline(gzip, sink);
  const write = async (line: string): Promise<void> => {
    if (!gzip.write(`${line}\n`)) await once(gzip, 'drain');
  };
  let tables = 0;
  let rows = 0;
  let header: Header | null = null;
  try {
    await knex.transaction(
      async (trx) => {
        const [{ now }] = (await trx.raw(`SELECT to_json(now())#>>'{}' AS now`)).rows as [{ now: string }];
        const applied = (await trx.raw(`SELECT name FROM knex_migrations ORDER BY id`)).rows as { name: string }[];
        header = { format: BACKUP_FORMAT, version: BACKUP_VERSION, startedAt: now, migrations: applied.map((m) => m.name) };
        await write(`H ${JSON.stringify(header)}`);
        for (const table of await tablesOf(trx)) {
          if (NOT_COPIED.has(table)) continue;
          tables += 1;
          await write(`T ${table}`);
          await trx.raw(`DECLARE pbw_backup NO SCROLL CURSOR FOR SELECT row_to_json(t)::text AS j FROM ${quoted(table)} t`);
          for (;;) {
            const batch = (await trx.raw(`FETCH ${FETCH_ROWS} FROM pbw_backup`)).rows as { j: string }[];
            for (const { j } of batch) await write(`R ${j}`);
            rows += batch.length;
            if (batch.length < FETCH_ROWS) break;
          }
          await trx.raw('CLOSE pbw_backup');
        }
      },
      { isolationLevel: 'repeatable read', readOnly: true },
    );
    await write(`E ${JSON.stringify({ tables, rows })}`);
    gzip.end();
    await written;
    // link() fails if the name was taken meanwhile: an existing file is never replaced.
    await link(partial, file);
  } catch (err) {
    gzip.destroy();
    await written.catch(() => undefined);
    throw err;
  } finally {
    await rm(partial, { force: true });
  }
  const done = header as Header | null;
  if (done === null) throw new BackupError('the backup read no header');
  return { file, startedAt: done.startedAt, tables, rows, bytes: (await stat(file)).size, migrations: done.migrations.length };
}

/**
 * The tables, views and sequences of the database in any schema but PostgreSQL's own (at most
 * `limit`, as `schema.name`): what makes it not empty.
 */
async function relationsOf(knex: Knex, limit: number): Promise<string[]> {
  const rows = (
    await knex.raw(
      `SELECT n.nspname AS schema, c.relname AS name FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
        WHERE c.relkind IN ('r', 'p', 'v', 'm', 'f', 'S')
          AND n.nspname NOT IN ('pg_catalog', 'information_schema') AND n.nspname NOT LIKE 'pg\\_toast%' AND n.nspname NOT LIKE 'pg\\_temp\\_%'
        ORDER BY 1, 2 LIMIT ?`,
      [limit],
    )
  ).rows as { schema: string; name: string }[];
  return rows.map((r) => `${r.schema}.${r.name}`);
}

/** Is the database empty: no table at all, in any schema? */
export async function isEmptyDatabase(knex: Knex): Promise<boolean> {
  return (await relationsOf(knex, 1)).length === 0;
}

/**
 * Loads a backup into an empty database: the backup's migrations, its rows (in one transaction,
 * with triggers and foreign-key checks off as `pg_restore --disable-triggers` does, since the rows
 * are a consistent copy of a database that held them), then the migrations added since. Refuses a
 * database that has any table (in any schema), a file that is not a complete backup, and a backup made by a newer
 * version of the service.
 */
export async function restoreBackup(knex: Knex, file: string, checked?: BackupHeader): Promise<RestoreSummary> {
  const found = await relationsOf(knex, 4);
  if (found.length > 0) {
    throw new BackupError(
      `the target database is not empty (it holds ${found.slice(0, 3).join(', ')}${found.length > 3 ? ', …' : ''}); restore only into an empty database (or a new embedded folder)`,
    );
  }
  const known = (await migrationSource.getMigrations([])).map((m) => migrationSource.getMigrationName(m));
  // The whole file is checked before the database is touched: a damaged copy leaves it empty.
  const header = checked ?? (await checkBackup(file));
  const backupMigrations = header.migrations;
  if (backupMigrations.some((name, i) => known[i] !== name)) {
    throw new BackupError(
      `the backup was made by another version of the service (its migrations: ${backupMigrations.at(-1) ?? 'none'}); restore it with that version or a later one`,
    );
  }
  const lines = backupLines(file);
  await lines.next();
  const config = { migrationSource, tableName: 'knex_migrations' };
  for (let i = 0; i < backupMigrations.length; i += 1) await knex.migrate.up(config);

  let tables = 0;
  let rows = 0;
  await knex.transaction(async (trx) => {
    try {
      await trx.raw('SET LOCAL session_replication_role = replica');
    } catch {
      throw new BackupError(
        'restoring needs a role that may set session_replication_role (a superuser, or on PostgreSQL 15 and later one granted SET ON PARAMETER session_replication_role)',
      );
    }
    let table = '';
    let batch: string[] = [];
    const flush = async (): Promise<void> => {
      if (batch.length === 0) return;
      await trx.raw(`INSERT INTO ${quoted(table)} SELECT * FROM json_populate_recordset(NULL::${quoted(table)}, ?::json)`, [
        `[${batch.join(',')}]`,
      ]);
      rows += batch.length;
      batch = [];
    };
    const present = new Set(await tablesOf(trx));
    for await (const line of lines) {
      if (line.startsWith('R ')) {
        batch.push(line.slice(2));
        if (batch.length >= INSERT_ROWS) await flush();
        continue;
      }
      await flush();
      if (line.startsWith('E ')) break;
      table = line.slice(2);
      if (!present.has(table) || NOT_COPIED.has(table))
        throw new BackupError(`the backup names a table the service does not have: ${table}`);
      tables += 1;
    }
    await afterRowsLoaded(trx);
  });
  const [, pending] = (await knex.migrate.list(config)) as [unknown[], unknown[]];
  await knex.migrate.latest(config);
  await applyFunctions(knex);
  return { file, backupStartedAt: header.startedAt, tables, rows, migrationsApplied: pending.length };
}

/**
 * What the loaded rows need on their new server, in the loading transaction: every identity's
 * sequence continues after the largest value loaded; and the event feed's positions are rebased.
 * A row's `txid` is a transaction id of the server the backup was made on, meaningless here (it
 * could be far ahead of this server's, hiding the row from the feed and ordering new events
 * before it), so every loaded event takes the restoring transaction's id, and `seq` is renumbered
 * in the feed's order `(txid, seq)`: the order a reader paged through is kept, and every event
 * written after the restore comes after every restored one.
 */
async function afterRowsLoaded(trx: Knex.Transaction): Promise<void> {
  const feed = (
    await trx.raw(
      `SELECT 1 FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = 'webhook_events' AND column_name = 'txid'`,
    )
  ).rows as unknown[];
  if (feed.length > 0) {
    await trx.raw(`UPDATE webhook_events e SET txid = pg_current_xact_id(), seq = r.n
      FROM (SELECT id, row_number() OVER (ORDER BY txid, seq) AS n FROM webhook_events) r WHERE e.id = r.id`);
  }
  const identities = (
    await trx.raw(
      `SELECT c.relname AS "table", a.attname AS "column" FROM pg_attribute a
       JOIN pg_class c ON c.oid = a.attrelid JOIN pg_namespace n ON n.oid = c.relnamespace
       WHERE n.nspname = current_schema() AND c.relkind = 'r' AND a.attidentity <> '' AND NOT a.attisdropped`,
    )
  ).rows as { table: string; column: string }[];
  for (const { table, column } of identities) {
    await trx.raw(
      `SELECT setval(pg_get_serial_sequence(?, ?), (SELECT COALESCE(max(${quoted(column)}), 0) + 1 FROM ${quoted(table)}), false)`,
      [quoted(table), column],
    );
  }
}

/** What a backup file says of itself, once read whole and found complete. */
export type BackupHeader = Header;

/** Reads the whole file: a header, then tables and rows, then an end whose counts match. */
export async function checkBackup(file: string): Promise<BackupHeader> {
  let header: Header | null = null;
  let tables = 0;
  let rows = 0;
  let end: { tables?: unknown; rows?: unknown } | null = null;
  for await (const line of backupLines(file)) {
    if (header === null) header = parseHeader(line);
    else if (end !== null) throw new BackupError('the backup is damaged: it has lines after its end');
    else if (line.startsWith('R ') && tables > 0) rows += 1;
    else if (line.startsWith('T ') && line.length > 2) tables += 1;
    else if (line.startsWith('E ')) end = parseJson(line.slice(2)) as { tables?: unknown; rows?: unknown };
    else throw new BackupError('the backup is damaged: a line is not a table, a row or its end');
  }
  if (header === null) throw new BackupError('the file is not a backup of this service');
  if (end === null) throw new BackupError('the backup is incomplete (it has no end)');
  if (end.tables !== tables || end.rows !== rows) {
    throw new BackupError(
      `the backup is damaged: it says ${String(end.tables)} tables and ${String(end.rows)} rows, it holds ${tables} and ${rows}`,
    );
  }
  return header;
}

const parseJson = (text: string): unknown => {
  try {
    return JSON.parse(text);
  } catch {
    throw new BackupError('the backup is damaged: its end is not readable');
  }
};

function parseHeader(line: string | undefined): Header {
  let header: Partial<Header> | null;
  try {
    header = line?.startsWith('H ') === true ? (JSON.parse(line.slice(2)) as Partial<Header>) : null;
  } catch {
    header = null;
  }
  if (header?.format !== BACKUP_FORMAT || !Array.isArray(header.migrations) || typeof header.startedAt !== 'string') {
    throw new BackupError('the file is not a backup of this service');
  }
  if (header.version !== BACKUP_VERSION) throw new BackupError(`backup format version ${String(header.version)} is not supported`);
  return header as Header;
}

/** The lines of a backup file, ungzipped; a missing, cut-off or non-gzip file fails as a BackupError. */
async function* backupLines(file: string): AsyncGenerator<string, void, undefined> {
  const text = new PassThrough();
  // pipeline() destroys every stream with the first error; the lines below then throw it.
  const unzipped = pipeline(createReadStream(file), createGunzip(), text).catch(() => undefined);
  try {
    yield* createInterface({ input: text, crlfDelay: Infinity });
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') throw new BackupError(`${file} does not exist`);
    if (code?.startsWith('Z_') === true)
      throw new BackupError('the file is not a complete backup of this service (its gzip is cut off or damaged)');
    throw err;
  } finally {
    text.destroy();
    await unzipped;
  }
}

async function exists(path: string): Promise<boolean> {
  try {
    await stat(path);
    return true;
  } catch {
    return false;
  }
}
