import type { WalletPrincipal } from '../../domain/identity/principal.js';
import { DomainError } from '../../domain/shared/errors.js';
import { PAGE_LIMITS, decodeCursor, encodeCursor, type Page } from '../../domain/shared/page.js';
import { transactionScope } from '../../domain/wallet/scope.js';
import type { TransactionReader } from '../../domain/wallet/transaction-reader.port.js';
import type { Transaction } from '../../domain/wallet/transaction.js';
import { type TransactionQuery, filterOf } from './transaction-query.js';

/** Lists the transactions the caller may see, newest first, one keyset page at a time. */
export class ListTransactions {
  constructor(private readonly reader: TransactionReader) {}

  async execute(principal: WalletPrincipal, q: TransactionQuery & { cursor?: string | null; limit?: number }): Promise<Page<Transaction>> {
    const filter = filterOf(q);
    const after = q.cursor === undefined || q.cursor === null ? null : decodeCursor(q.cursor);
    if (q.cursor !== undefined && q.cursor !== null && after === null) {
      throw new DomainError('invalid-request', {
        message: 'The cursor is not one this service issued.',
        details: {
          errors: [{ path: 'cursor', message: 'unknown cursor' }],
        },
      });
    }
    const limit = q.limit ?? PAGE_LIMITS.default;
    const rows = await this.reader.list(transactionScope(principal, q.userId ?? null), filter, after, limit + 1);
    const data = rows.slice(0, limit);
    const last = data[data.length - 1];
    return {
      data,
      nextCursor: rows.length > limit && last !== undefined ? encodeCursor({ createdAt: last.createdAt, id: last.id }) : null,
    };
  }
}
