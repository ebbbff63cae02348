import type { WalletPrincipal } from '../../domain/identity/principal.js';
import { invalid } from '../../domain/shared/errors.js';
import { PAGE_LIMITS, decodeCursor, encodeCursor, type Page } from '../../domain/shared/page.js';
import { transactionNotFound } from '../../domain/wallet/ledger.js';
import { transactionScope } from '../../domain/wallet/scope.js';
import type { TransactionFilter, TransactionReader, TypeSummary } from '../../domain/wallet/transaction-reader.port.js';
import type { Transaction, TransactionType } from '../../domain/wallet/transaction.js';

/** What a caller may ask of the transaction reads; the scope comes from the principal alone. */
export interface TransactionQuery {
  /** Narrows a machine token's reads to one user's activity; ignored for a user token. */
  readonly userId?: string | null;
  readonly types?: readonly TransactionType[];
  readonly from?: Date;
  readonly to?: Date;
}

const filterOf = (q: TransactionQuery): TransactionFilter => {
  if (q.from !== undefined && q.to !== undefined && q.from.getTime() > q.to.getTime()) {
    throw invalid('invalid-request', '`from` must not be after `to`.', { errors: [{ path: 'from', message: 'must not be after to' }] });
  }
  return {
    ...(q.types === undefined ? {} : { types: q.types }),
    ...(q.from === undefined ? {} : { from: q.from }),
    ...(q.to === undefined ? {} : { to: q.to }),
  };
};

/** Lists the transactions the caller may see, newest first, one keyset page at a time. */
export class ListTransactions {
  constructor(private readonly reader: TransactionReader) {}

  async execute(principal: WalletPrincipal, q: TransactionQuery & { cursor?: string | null; limit?: number }): Promise<Page<Transaction>> {
    const filter = filterOf(q);
    const after = q.cursor === undefined || q.cursor === null ? null : decodeCursor(q.cursor);
    if (q.cursor !== undefined && q.cursor !== null && after === null) {
      throw invalid('invalid-request', 'The cursor is not one this service issued.', {
        errors: [{ path: 'cursor', message: 'unknown cursor' }],
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

/** One transaction, when it is within the caller's scope; `transaction-not-found` otherwise. */
export class GetTransaction {
  constructor(private readonly reader: TransactionReader) {}

  async execute(principal: WalletPrincipal, transactionId: string): Promise<Transaction> {
    const found = await this.reader.find(transactionScope(principal), transactionId);
    if (found === null) throw transactionNotFound();
    return found;
  }
}

/** Counts and totals per type over exactly what the list would show for the same parameters. */
export class SummarizeTransactions {
  constructor(private readonly reader: TransactionReader) {}

  async execute(principal: WalletPrincipal, q: TransactionQuery): Promise<{ from: Date | null; to: Date | null; byType: TypeSummary[] }> {
    const byType = await this.reader.summarize(transactionScope(principal, q.userId ?? null), filterOf(q));
    return { from: q.from ?? null, to: q.to ?? null, byType };
  }
}
