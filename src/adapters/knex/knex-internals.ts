import type { Knex } from 'knex';

/**
 * The one place that reads Knex internals (not public API): the client's
 * `acquireConnection`/`releaseConnection`, which `rows` uses to run a statement on a pooled
 * connection without the query builder, and the client's tarn `pool`, which the pool metrics
 * watch. `test/unit/framework-internals.test.ts` fails when a Knex upgrade changes them.
 */

/** The part of a pooled connection that `rows` uses: node-postgres' client or PGlite. */
export interface Queryable {
  query(
    config: { name?: string; text: string; values: readonly unknown[] } | string,
    values?: readonly unknown[],
  ): Promise<{ rows: unknown[] }>;
}

interface PoolClient {
  acquireConnection(): Promise<Queryable>;
  releaseConnection(connection: unknown): Promise<unknown> | unknown;
}

/** tarn's pool, as Knex exposes it on its client. */
export interface TarnPool {
  numUsed(): number;
  numFree(): number;
  numPendingAcquires(): number;
  max: number;
  on(event: 'acquireRequest' | 'acquireSuccess' | 'acquireFail', listener: (eventId: number) => void): void;
}

const poolClientOf = (db: Knex | Knex.Transaction): PoolClient => {
  const client = db.client as unknown as Partial<PoolClient>;
  if (typeof client.acquireConnection !== 'function' || typeof client.releaseConnection !== 'function') {
    throw new Error('Knex no longer has client.acquireConnection/releaseConnection (see src/adapters/knex/knex-internals.ts)');
  }
  return client as PoolClient;
};

/**
 * Runs `use` on a connection of Knex's pool (or the connection of the transaction `db` is) and
 * gives the connection back however `use` ends.
 */
export async function withPooledConnection<T>(db: Knex | Knex.Transaction, use: (connection: Queryable) => Promise<T>): Promise<T> {
  const client = poolClientOf(db);
  const connection = await client.acquireConnection();
  try {
    return await use(connection);
  } finally {
    await client.releaseConnection(connection);
  }
}

/** The client's tarn pool, or null when the client has none of that shape (PGlite's single connection). */
export const tarnPoolOf = (knex: Knex): TarnPool | null => {
  const pool = (knex.client as { pool?: Partial<TarnPool> }).pool;
  return pool !== undefined && pool !== null && typeof pool.numUsed === 'function' && typeof pool.on === 'function'
    ? (pool as TarnPool)
    : null;
};
