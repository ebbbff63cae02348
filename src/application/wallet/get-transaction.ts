import type { WalletPrincipal } from '../../domain/identity/principal.js';
import { transactionNotFound } from '../../domain/wallet/ledger.js';
import { transactionScope } from '../../domain/wallet/scope.js';
import type { TransactionReader } from '../../domain/wallet/transaction-reader.port.js';
import type { Transaction } from '../../domain/wallet/transaction.js';

/** One transaction, when it is within the caller's scope; `transaction-not-found` otherwise. */
export class GetTransaction {
  constructor(private readonly reader: TransactionReader) {}

  async execute(principal: WalletPrincipal, transactionId: string): Promise<Transaction> {
    const found = await this.reader.find(transactionScope(principal), transactionId);
    if (found === null) throw transactionNotFound();
    return found;
  }
}
