// The filter of a transaction listing or summary, checked once for both use cases.

import { DomainError } from '../../domain/shared/errors.js';
import type { TransactionFilter } from '../../domain/wallet/transaction-reader.port.js';
import type { TransactionType } from '../../domain/wallet/transaction.js';

/** What a caller may ask of the transaction reads; the scope comes from the principal alone. */
export interface TransactionQuery {
  /** Narrows a machine token's reads to one user's activity; ignored for a user token. */
  readonly userId?: string | null;
  readonly types?: readonly TransactionType[];
  readonly from?: Date;
  readonly to?: Date;
}

export const filterOf = (q: TransactionQuery): TransactionFilter => {
  if (q.from !== undefined && q.to !== undefined && q.from.getTime() > q.to.getTime()) {
    throw new DomainError('invalid-request', {
      message: '`from` must not be after `to`.',
      details: { errors: [{ path: 'from', message: 'must not be after to' }] },
    });
  }
  return {
    ...(q.types === undefined ? {} : { types: q.types }),
    ...(q.from === undefined ? {} : { from: q.from }),
    ...(q.to === undefined ? {} : { to: q.to }),
  };
};
