import { ContainerModule } from 'inversify';
import { DirectoryWalletHolders } from '../../application/wallet/directory-wallet-holders.js';
import { MakePayment } from '../../application/wallet/make-payment.js';
import { MakeTransfer } from '../../application/wallet/make-transfer.js';
import { GetMyBalance } from '../../application/wallet/get-my-balance.js';
import { GetUserBalances } from '../../application/wallet/get-user-balances.js';
import { GetTransaction } from '../../application/wallet/get-transaction.js';
import { ListTransactions } from '../../application/wallet/list-transactions.js';
import { SummarizeTransactions } from '../../application/wallet/summarize-transactions.js';
import { RefundPayment } from '../../application/wallet/refund-payment.js';
import { TopUp } from '../../application/wallet/top-up.js';
import { moneyRoutes } from '../../adapters/http/wallet/money.routes.js';
import { transactionsRoutes } from '../../adapters/http/wallet/transactions.routes.js';
import type { Database } from '../../adapters/knex/database.js';
import { KnexLedger } from '../../adapters/knex/ledger.knex.js';
import type { MemoryOutbox } from '../../adapters/memory/webhooks.memory.js';
import { MemoryLedger } from '../../adapters/memory/ledger.memory.js';
import { TOKENS } from '../tokens.js';

/** Wallet money: the ledger, its use cases and the money and transaction routes. */
export const walletLedgerModule = (db: Database | null, outbox?: MemoryOutbox): ContainerModule =>
  new ContainerModule(({ bind }) => {
    const ledger = db === null ? new MemoryLedger(outbox) : new KnexLedger(db.knex);
    bind(TOKENS.Ledger).toConstantValue(ledger);
    bind(TOKENS.TransactionReader).toConstantValue(ledger);
    bind(TOKENS.WalletHolders).toResolvedValue((tenants) => new DirectoryWalletHolders(tenants), [TOKENS.TenantDirectory]);
    bind(TOKENS.TopUp).toResolvedValue(
      (l, h, ids, clock) => new TopUp(l, h, ids, clock),
      [TOKENS.Ledger, TOKENS.WalletHolders, TOKENS.Ids, TOKENS.Clock],
    );
    bind(TOKENS.MakePayment).toResolvedValue(
      (l, h, ids, clock) => new MakePayment(l, h, ids, clock),
      [TOKENS.Ledger, TOKENS.WalletHolders, TOKENS.Ids, TOKENS.Clock],
    );
    bind(TOKENS.MakeTransfer).toResolvedValue(
      (l, h, ids, clock) => new MakeTransfer(l, h, ids, clock),
      [TOKENS.Ledger, TOKENS.WalletHolders, TOKENS.Ids, TOKENS.Clock],
    );
    bind(TOKENS.RefundPayment).toResolvedValue(
      (l, h, ids, clock) => new RefundPayment(l, h, ids, clock),
      [TOKENS.Ledger, TOKENS.WalletHolders, TOKENS.Ids, TOKENS.Clock],
    );
    bind(TOKENS.GetMyBalance).toResolvedValue((l, h) => new GetMyBalance(l, h), [TOKENS.Ledger, TOKENS.WalletHolders]);
    bind(TOKENS.GetUserBalances).toResolvedValue((l, h) => new GetUserBalances(l, h), [TOKENS.Ledger, TOKENS.WalletHolders]);
    bind(TOKENS.ListTransactions).toResolvedValue((r) => new ListTransactions(r), [TOKENS.TransactionReader]);
    bind(TOKENS.GetTransaction).toResolvedValue((r) => new GetTransaction(r), [TOKENS.TransactionReader]);
    bind(TOKENS.SummarizeTransactions).toResolvedValue((r) => new SummarizeTransactions(r), [TOKENS.TransactionReader]);
    bind(TOKENS.WalletRouters).toResolvedValue(
      (auth, idempotent, topUp, refund, pay, transfer, balance, limits) =>
        moneyRoutes({ auth, idempotent, topUp, refund, pay, transfer, balance, limitPayments: limits.payments }),
      [
        TOKENS.WalletAuth,
        TOKENS.Idempotent,
        TOKENS.TopUp,
        TOKENS.RefundPayment,
        TOKENS.MakePayment,
        TOKENS.MakeTransfer,
        TOKENS.GetMyBalance,
        TOKENS.RateLimits,
      ],
    );
    bind(TOKENS.WalletRouters).toResolvedValue(
      (auth, list, get, summarize) => transactionsRoutes({ auth, list, get, summarize }),
      [TOKENS.WalletAuth, TOKENS.ListTransactions, TOKENS.GetTransaction, TOKENS.SummarizeTransactions],
    );
  });
