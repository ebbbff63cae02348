import type { WalletPrincipal } from '../../domain/identity/principal.js';
import { transactionScope } from '../../domain/wallet/scope.js';
import type { TransactionReader, TypeSummary } from '../../domain/wallet/transaction-reader.port.js';
import { type TransactionQuery, filterOf } from './transaction-query.js';

/** Counts and totals per type over exactly what the list would show for the same parameters. */
export class SummarizeTransactions {
  constructor(private readonly reader: TransactionReader) {}

  async execute(principal: WalletPrincipal, q: TransactionQuery): Promise<{ from: Date | null; to: Date | null; byType: TypeSummary[] }> {
    const byType = await this.reader.summarize(transactionScope(principal, q.userId ?? null), filterOf(q));
    return { from: q.from ?? null, to: q.to ?? null, byType };
  }
}
