import type { WalletPrincipal } from '../../domain/identity/principal.js';
import { pageOf, pageRequest, type Page, type PageQuery } from '../../domain/shared/page.js';
import { transactionScope } from '../../domain/wallet/scope.js';
import type { TransactionReader } from '../../domain/wallet/transaction-reader.port.js';
import type { Transaction } from '../../domain/wallet/transaction.js';
import { type TransactionQuery, filterOf } from './transaction-query.js';

/** Lists the transactions the caller may see, newest first, one keyset page at a time. */
export class ListTransactions {
  constructor(private readonly reader: TransactionReader) {}

  async execute(principal: WalletPrincipal, q: TransactionQuery & PageQuery): Promise<Page<Transaction>> {
    const filter = filterOf(q);
    const { after, limit } = pageRequest(q);
    return pageOf(await this.reader.list(transactionScope(principal, q.userId ?? null), filter, after, limit + 1), limit);
  }
}
