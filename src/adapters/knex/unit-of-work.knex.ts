import { AsyncLocalStorage } from 'node:async_hooks';
import type { Knex } from 'knex';
import type { UnitOfWork } from '../../application/unit-of-work.port.js';

/** The database transaction of the unit of work running in the current async context. */
const current = new AsyncLocalStorage<Knex.Transaction>();

/** The running unit of work's transaction, if any (and still open). */
export const ambientTransaction = (): Knex.Transaction | null => {
  const trx = current.getStore();
  return trx === undefined || trx.isCompleted() ? null : trx;
};

/**
 * Where a store's statement runs: in the running unit of work's transaction when there is one,
 * else on `pool`. Every store a unit of work may reach asks here, so that nothing inside one
 * takes a second connection: embedded PGlite has only one, which the unit's transaction holds.
 */
export const ambient = (pool: Knex): Knex => ambientTransaction() ?? pool;

/**
 * Units of work as PostgreSQL (or PGlite) transactions on `pool`, carried in the async context:
 * the stores write through it without being given it. A nested `run` joins the outer transaction.
 */
export class KnexUnitOfWork implements UnitOfWork {
  constructor(private readonly pool: Knex) {}

  async run<T>(work: () => Promise<T>): Promise<T> {
    if (ambientTransaction() !== null) return work();
    return this.pool.transaction((trx) => current.run(trx, work));
  }
}
