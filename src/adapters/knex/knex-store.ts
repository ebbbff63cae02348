import type { Knex } from 'knex';
import { isRetryableTransactionError, TRANSACTION_ATTEMPTS } from './pg-errors.js';
import { ambient, ambientTransaction } from './unit-of-work.knex.js';

/**
 * What every Knex store extends to reach the database: `knex` is the running unit of work's
 * transaction when there is one, else the pool, so nothing a store does inside a unit takes a
 * second connection (embedded PGlite has only one, which the unit's transaction holds: a store
 * that went around it would wait for it forever). `rawPool` is the pool itself, for what runs
 * where a unit can never be open: a transaction of the store's own when none is running, a
 * batched read across requests outside any unit.
 */
export abstract class KnexStore {
  constructor(protected readonly rawPool: Knex) {}

  /** Where statements run: the running unit of work's transaction, else the pool. */
  protected get knex(): Knex {
    return ambient(this.rawPool);
  }

  /** Runs `work` in the running unit of work's transaction when there is one, else in a transaction of its own. */
  protected inTransaction<T>(work: (trx: Knex.Transaction) => Promise<T>): Promise<T> {
    const unit = ambientTransaction();
    return unit === null ? this.rawPool.transaction(work) : work(unit);
  }

  /**
   * As `inTransaction`, a transaction of its own retried on a deadlock or serialization failure
   * (inside a unit of work such a failure ends the unit's transaction: it is the unit's to retry).
   */
  protected async inRetriedTransaction<T>(work: (trx: Knex.Transaction) => Promise<T>): Promise<T> {
    const unit = ambientTransaction();
    if (unit !== null) return work(unit);
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.rawPool.transaction(work);
      } catch (err) {
        if (attempt < TRANSACTION_ATTEMPTS && isRetryableTransactionError(err)) continue;
        throw err;
      }
    }
  }
}
