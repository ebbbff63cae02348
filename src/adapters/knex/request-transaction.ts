import { AsyncLocalStorage } from 'node:async_hooks';
import type { Knex } from 'knex';

/**
 * The database transaction that the running request's writes join: the one holding its
 * idempotency claim. A write made in it commits together with the stored response, or not at
 * all (a failed request, a crash or a lost connection rolls both back), in one commit instead of
 * two. Set only by `KnexIdempotencyStore` for the request it claimed a key for; absent otherwise.
 */
const current = new AsyncLocalStorage<Knex.Transaction>();

/** Runs `work` (and everything it starts) with `trx` as the request's transaction. */
export const withRequestTransaction = <T>(trx: Knex.Transaction, work: () => T): T => current.run(trx, work);

/** The request's transaction, while it is still open; null when the request has none. */
export const requestTransaction = (): Knex.Transaction | null => {
  const trx = current.getStore();
  return trx === undefined || trx.isCompleted() ? null : trx;
};
