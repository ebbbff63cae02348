import { transactionCreated } from '../../domain/webhooks/events.js';
import type { MemoryOutbox } from './webhooks.memory.js';
import { DomainError } from '../../domain/shared/errors.js';
import { keyReused } from '../../domain/shared/idempotency.js';
import type { Cursor } from '../../domain/shared/page.js';
import {
  accountId,
  inLockOrder,
  insufficientFunds,
  mayGoNegative,
  postingsOf,
  refundableAmount,
  sameRequest,
  transactionNotFound,
  type AccountRef,
  paymentRecord,
  refundRecord,
  topUpRecord,
  transferRecord,
} from '../../domain/wallet/ledger.js';
import type { Ledger, NewPayment, NewRefund, NewTopUp, NewTransfer } from '../../domain/wallet/ledger.port.js';
import { inScope, type TransactionScope } from '../../domain/wallet/scope.js';
import type { TransactionFilter, TransactionReader, TypeSummary } from '../../domain/wallet/transaction-reader.port.js';
import { TRANSACTION_TYPES, type Transaction } from '../../domain/wallet/transaction.js';

interface Account {
  readonly id: string;
  readonly tenantId: string;
  readonly ref: AccountRef;
  readonly currency: string;
  balance: number;
}

/** One entry of the ledger, as the PostgreSQL adapter stores it. */
export interface MemoryEntry {
  readonly transactionId: string;
  readonly accountId: string;
  readonly amount: number;
}

/**
 * The ledger in process memory, with the same decisions as PostgreSQL. Each write checks and
 * applies without awaiting in between, so it is atomic among concurrent calls of one process.
 */
export class MemoryLedger implements Ledger, TransactionReader {
  private readonly accounts = new Map<string, Account>();
  private readonly transactions = new Map<string, Transaction>();
  private readonly byKey = new Map<string, string>();
  readonly entries: MemoryEntry[] = [];

  /** `outbox` records `transaction.created` with each transaction, as the database's would. */
  constructor(private readonly outbox?: MemoryOutbox) {}

  async topUp(e: NewTopUp): Promise<Transaction> {
    return this.record(e.idempotency, topUpRecord(e));
  }

  async pay(e: NewPayment): Promise<Transaction> {
    return this.record(e.idempotency, paymentRecord(e));
  }

  async transfer(e: NewTransfer): Promise<Transaction> {
    return this.record(e.idempotency, transferRecord(e));
  }

  async refund(e: NewRefund): Promise<Transaction> {
    const payment = this.transactions.get(e.paymentId);
    if (payment === undefined || payment.tenantId !== e.tenantId) throw transactionNotFound();
    const replay = this.replay(e.tenantId, e.idempotency, {
      type: 'REFUND',
      amount: e.amount,
      userId: payment.userId,
      counterpartyUserId: null,
      refundOf: payment.id,
    });
    if (replay !== null) return replay;
    const amount = refundableAmount(payment, e.amount);
    const refund = this.record(e.idempotency, refundRecord(e, payment, amount));
    this.transactions.set(payment.id, { ...payment, refundedAmount: payment.refundedAmount + amount });
    return refund;
  }

  async balanceOf(tenantId: string, userId: string): Promise<number> {
    return this.accounts.get(accountId(tenantId, { kind: 'USER', userId }))?.balance ?? 0;
  }

  async balancesOf(tenantId: string, userIds: readonly string[]): Promise<ReadonlyMap<string, number>> {
    const out = new Map<string, number>();
    for (const userId of userIds) {
      const account = this.accounts.get(accountId(tenantId, { kind: 'USER', userId }));
      if (account !== undefined) out.set(userId, account.balance);
    }
    return out;
  }

  async list(scope: TransactionScope, filter: TransactionFilter, after: Cursor | null, limit: number): Promise<Transaction[]> {
    return this.matching(scope, filter)
      .filter((t) => after === null || before(after, t))
      .sort((a, b) => (before(a, b) ? -1 : before(b, a) ? 1 : 0))
      .slice(0, limit);
  }

  async find(scope: TransactionScope, transactionId: string): Promise<Transaction | null> {
    const t = this.transactions.get(transactionId);
    return t !== undefined && inScope(scope, t) ? t : null;
  }

  async summarize(scope: TransactionScope, filter: TransactionFilter): Promise<TypeSummary[]> {
    const rows = this.matching(scope, filter);
    return TRANSACTION_TYPES.map((type) => {
      const of = rows.filter((t) => t.type === type);
      return { type, count: of.length, total: of.reduce((s, t) => s + t.amount.amount, 0) };
    });
  }

  /** Every account with its balance, for the balance check of the tests. */
  balances(): ReadonlyArray<{ id: string; kind: AccountRef['kind']; balance: number }> {
    return [...this.accounts.values()].map((a) => ({ id: a.id, kind: a.ref.kind, balance: a.balance }));
  }

  /** Every transaction, for the balance check of the tests. */
  allTransactions(): readonly Transaction[] {
    return [...this.transactions.values()];
  }

  private matching(scope: TransactionScope, filter: TransactionFilter): Transaction[] {
    return [...this.transactions.values()].filter(
      (t) =>
        inScope(scope, t) &&
        (filter.types === undefined || filter.types.length === 0 || filter.types.includes(t.type)) &&
        (filter.from === undefined || t.createdAt.getTime() >= filter.from.getTime()) &&
        (filter.to === undefined || t.createdAt.getTime() < filter.to.getTime()),
    );
  }

  private replay(tenantId: string, idem: NewTopUp['idempotency'], wanted: Parameters<typeof sameRequest>[1]): Transaction | null {
    if (idem === null) return null;
    const id = this.byKey.get(`${tenantId}\u0000${idem.scope}\u0000${idem.key}`);
    if (id === undefined) return null;
    const existing = this.transactions.get(id)!;
    if (!sameRequest(existing, wanted)) throw keyReused();
    return existing;
  }

  private record(idem: NewTopUp['idempotency'], t: Transaction): Transaction {
    const replay = this.replay(t.tenantId, idem, {
      type: t.type,
      amount: t.amount.amount,
      userId: t.userId,
      counterpartyUserId: t.counterpartyUserId,
      refundOf: t.refundOf,
    });
    if (replay !== null) return replay;
    const postings = inLockOrder(t.tenantId, postingsOf(t));
    // Check every debit before applying any, as the database transaction's rollback would.
    for (const p of postings) {
      const account = this.accounts.get(accountId(t.tenantId, p.account));
      if (p.amount < 0 && !mayGoNegative(p.account) && (account?.balance ?? 0) < -p.amount) {
        if (p.account.kind === 'USER') throw insufficientFunds();
        throw new DomainError('insufficient-funds', { message: 'The tenant account is too low for this amount.' });
      }
    }
    for (const p of postings) {
      const id = accountId(t.tenantId, p.account);
      const account = this.accounts.get(id) ?? { id, tenantId: t.tenantId, ref: p.account, currency: t.amount.currency, balance: 0 };
      account.balance += p.amount;
      this.accounts.set(id, account);
      this.entries.push({ transactionId: t.id, accountId: id, amount: p.amount });
    }
    this.transactions.set(t.id, t);
    if (idem !== null) this.byKey.set(`${t.tenantId}\u0000${idem.scope}\u0000${idem.key}`, t.id);
    this.outbox?.record([transactionCreated(t)]);
    return t;
  }
}

/** Is `a` before `b` in the listing order (newest first, then id descending)? */
const before = (a: { createdAt: Date; id: string }, b: { createdAt: Date; id: string }): boolean => {
  const ta = a.createdAt.getTime();
  const tb = b.createdAt.getTime();
  return ta > tb || (ta === tb && a.id > b.id);
};
