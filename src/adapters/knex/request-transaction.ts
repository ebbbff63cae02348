import type { Knex } from 'knex';
import type { UnitOfWork } from '../../domain/shared/idempotency.port.js';

/**
 * The database transactions behind the units of work that `KnexIdempotencyStore` hands out: the
 * transaction holding a request's idempotency claim. A write made in it commits together with
 * the stored response, or not at all (a failed request, a crash or a lost connection rolls both
 * back), in one commit instead of two.
 */
const transactions = new WeakMap<UnitOfWork, Knex.Transaction>();

/** The unit of work that writes through `trx`. */
export const unitOfWorkOf = (trx: Knex.Transaction): UnitOfWork => {
  const unit: UnitOfWork = { unitOfWork: true };
  transactions.set(unit, trx);
  return unit;
};

/** The open transaction of `unit`; null when there is none, it is another store's, or it has ended. */
export const transactionOf = (unit: UnitOfWork | null | undefined): Knex.Transaction | null => {
  const trx = unit === null || unit === undefined ? undefined : transactions.get(unit);
  return trx === undefined || trx.isCompleted() ? null : trx;
};
