import knexFactory, { type Knex } from 'knex';
import pg from 'pg';
import { migrationSource } from './migrations/index.js';
import { applyFunctions } from './schema/functions/index.js';
import { keepPrivate } from './pglite-owner.js';

// int8 (COUNT(*), SUM of bigint) as a JS number: every amount here is far below 2^53.
pg.types.setTypeParser(20, (value: string) => Number.parseInt(value, 10));
// numeric as a JS number for aggregates over integer columns.
pg.types.setTypeParser(1700, (value: string) => Number(value));

/** How the service reaches PostgreSQL. */
export type DatabaseTarget =
  | {
      readonly kind: 'postgres';
      readonly url: string;
      readonly poolMax?: number;
      /** How long a query waits for a free pooled connection before failing (503). */
      readonly acquireTimeoutMs?: number;
    }
  | { readonly kind: 'pglite'; readonly dataDir: string | null };

/** A Knex handle and what it takes to close it. */
export interface Database {
  readonly knex: Knex;
  readonly target: DatabaseTarget;
  /** The embedded engine, when the target is PGlite (for LISTEN/NOTIFY). */
  readonly pglite: PGliteLike | null;
  close(): Promise<void>;
}

/** The part of PGlite the service uses besides Knex. */
export interface PGliteLike {
  listen(channel: string, callback: (payload: string) => void): Promise<() => Promise<void>>;
  close(): Promise<void>;
}

/**
 * Timeouts that keep a slow or stuck database from holding requests forever. The three
 * snake_case ones are sent as session parameters in the startup packet of every pooled
 * connection (see test/integration/database-faults.test.ts, which reads them back with SHOW).
 */
export const SESSION_TIMEOUTS = {
  connectionTimeoutMillis: 5_000,
  statement_timeout: 10_000,
  lock_timeout: 5_000,
  idle_in_transaction_session_timeout: 30_000,
} as const;

/** Default size of the pool (`DB_POOL_MAX`). */
export const DEFAULT_POOL_MAX = 10;

/** Default wait for a free pooled connection: short, so an exhausted pool answers 503 quickly. */
export const DEFAULT_ACQUIRE_TIMEOUT_MS = 3_000;

/** Where the pool reports what goes wrong with connections (by default: nowhere). */
export interface DatabaseEvents {
  /** A pooled connection failed while idle (it is discarded, never fatal). */
  readonly onConnectionError?: (err: Error) => void;
  /** Knex's own warnings and errors (failed acquisitions, for instance). */
  readonly log?: (level: 'warn' | 'error', message: string) => void;
}

/** A Knex handle with its own pool on a PostgreSQL server, with the service's timeouts. */
export function postgresKnex(target: Extract<DatabaseTarget, { kind: 'postgres' }>, events: DatabaseEvents = {}): Knex {
  const acquireTimeoutMs = target.acquireTimeoutMs ?? DEFAULT_ACQUIRE_TIMEOUT_MS;
  const onConnectionError = events.onConnectionError ?? (() => undefined);
  const say = events.log ?? (() => undefined);
  const text = (m: unknown): string => (m instanceof Error ? m.message : String(m));
  const knex = knexFactory({
    log: {
      warn: (m: unknown) => say('warn', text(m)),
      error: (m: unknown) => say('error', text(m)),
      deprecate: () => undefined,
      debug: () => undefined,
    },
    client: 'pg',
    connection: {
      connectionString: target.url,
      application_name: 'partner-booking-wallet',
      // Never let the connect attempt outlive the wait for the pool.
      ...SESSION_TIMEOUTS,
      connectionTimeoutMillis: Math.min(SESSION_TIMEOUTS.connectionTimeoutMillis, acquireTimeoutMs),
      keepAlive: true,
    },
    pool: {
      min: 0,
      max: target.poolMax ?? DEFAULT_POOL_MAX,
      acquireTimeoutMillis: acquireTimeoutMs,
      createTimeoutMillis: acquireTimeoutMs,
      // A pooled connection that the server drops (restart, pg_terminate_backend, network)
      // emits 'error' while idle. Knex marks it disposed so the pool discards it on the next
      // acquire; this listener makes sure such an event can never be unhandled.
      afterCreate: (conn: pg.Client, done: (err: Error | null, conn: pg.Client) => void) => {
        conn.on('error', onConnectionError);
        done(null, conn);
      },
    },
    acquireConnectionTimeout: acquireTimeoutMs,
  });
  return knex;
}

/** Opens a Knex handle on PostgreSQL or embedded PGlite. */
export async function openDatabase(target: DatabaseTarget, events: DatabaseEvents = {}): Promise<Database> {
  if (target.kind === 'postgres') {
    const knex = postgresKnex(target, events);
    return { knex, target, pglite: null, close: () => knex.destroy() };
  }
  const [{ PGlite }, { default: ClientPgLite }] = await Promise.all([import('@electric-sql/pglite'), import('knex-pglite')]);
  const pglite = target.dataDir === null ? new PGlite() : new PGlite(target.dataDir);
  await pglite.waitReady;
  // A new database's files are written from PGlite's bundled image as 0666, whatever the umask.
  if (target.dataDir !== null) await keepPrivate(target.dataDir);
  // knex-pglite's documented setup: its Client class, with the PGlite instance as the connection.
  const knex = knexFactory({
    client: ClientPgLite,
    dialect: 'postgres',
    connection: () => ({ pglite }) as object,
  });
  return {
    knex,
    target,
    pglite,
    close: async () => {
      await knex.destroy();
      if (!pglite.closed) await pglite.close();
    },
  };
}

const MIGRATION_LOCK = 72_541_001;

/**
 * Applies pending migrations, then brings the schema's functions to their one definition each
 * (`schema/functions/`). Several processes may start at once: a session advisory lock
 * serialises them so each sees the others' work instead of failing on knex's lock table.
 */
export async function migrate(db: Database): Promise<void> {
  const config = { migrationSource, tableName: 'knex_migrations' };
  if (db.target.kind === 'pglite') {
    await db.knex.migrate.latest(config);
    await applyFunctions(db.knex);
    return;
  }
  const client = new pg.Client({ connectionString: db.target.url, ...SESSION_TIMEOUTS, statement_timeout: 0 });
  await client.connect();
  try {
    await client.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK]);
    await db.knex.migrate.latest(config);
    await applyFunctions(db.knex);
  } finally {
    await client.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK]).catch(() => undefined);
    await client.end();
  }
}
