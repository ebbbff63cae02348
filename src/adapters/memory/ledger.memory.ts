import { transactionCreated } from '../../domain/webhooks/events.js';
import type { MemoryOutbox } from './webhooks.memory.js';
import type { Cursor } from '../../domain/shared/page.js';
import {
  accountId,
  inLockOrder,
  mayGoNegative,
  requireAccountCurrency,
  shortOf,
  postingsOf,
  refundableAmount,
  transactionNotFound,
  type AccountRef,
  paymentRecord,
  refundRecord,
  topUpRecord,
  transferRecord,
} from '../../domain/wallet/ledger.js';
import type {
  Ledger,
  NewPayment,
  NewRefund,
  NewTopUp,
  NewTransfer,
  StatementLine,
  StatementPosition,
} from '../../domain/wallet/ledger.port.js';
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
  readonly createdAt: Date;
  /** The order of application, as the database's identity gives it. */
  readonly seq: number;
  /** The account's balance just after this entry. */
  readonly balanceAfter: number;
}

/**
 * The ledger in process memory, with the same decisions as PostgreSQL. Each write checks and
 * applies without awaiting in between, so it is atomic among concurrent calls of one process.
 */
export class MemoryLedger implements Ledger, TransactionReader {
  private readonly accounts = new Map<string, Account>();
  private readonly transactions = new Map<string, Transaction>();
  readonly entries: MemoryEntry[] = [];

  /** What the account's pending transfers hold at an instant (none until `respectHolds`). */
  private heldOn: (accountId: string, at: Date) => number = () => 0;

  /** `outbox` records `transaction.created` with each transaction, as the database's would. */
  constructor(private readonly outbox?: MemoryOutbox) {}

  /** From now on, a debit of a user's account leaves at least what `held` says it holds, as the database's trigger does. */
  respectHolds(held: (accountId: string, at: Date) => number): void {
    this.heldOn = held;
  }

  async topUp(e: NewTopUp): Promise<Transaction> {
    return this.record(topUpRecord(e));
  }

  async pay(e: NewPayment): Promise<Transaction> {
    return this.record(paymentRecord(e));
  }

  async transfer(e: NewTransfer): Promise<Transaction> {
    return this.record(transferRecord(e));
  }

  async refund(e: NewRefund): Promise<Transaction> {
    const payment = this.transactions.get(e.paymentId);
    if (payment === undefined || payment.tenantId !== e.tenantId) throw transactionNotFound();
    const amount = refundableAmount(payment, e.amount);
    const refund = this.record(refundRecord(e, payment, amount));
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

  async balanceBefore(tenantId: string, userId: string, instant: Date): Promise<number> {
    const id = accountId(tenantId, { kind: 'USER', userId });
    let last: MemoryEntry | null = null;
    for (const e of this.entries) if (e.accountId === id && e.createdAt.getTime() < instant.getTime() && appliedAfter(e, last)) last = e;
    return last?.balanceAfter ?? 0;
  }

  async statementLines(
    tenantId: string,
    userId: string,
    range: { readonly from: Date; readonly to: Date },
    after: StatementPosition | null,
    limit: number,
  ): Promise<StatementLine[]> {
    const id = accountId(tenantId, { kind: 'USER', userId });
    return this.entries
      .filter(
        (e) =>
          e.accountId === id &&
          e.createdAt.getTime() >= range.from.getTime() &&
          e.createdAt.getTime() < range.to.getTime() &&
          (after === null || appliedAfter({ createdAt: e.createdAt, seq: e.seq }, { createdAt: after.at, seq: after.seq })),
      )
      .sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime() || a.seq - b.seq)
      .slice(0, limit)
      .map((e) => {
        const t = this.transactions.get(e.transactionId)!;
        return {
          at: e.createdAt,
          seq: e.seq,
          transactionId: t.id,
          type: t.type,
          reference: t.reference,
          amount: e.amount,
          balance: e.balanceAfter,
        };
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

  private record(t: Transaction): Transaction {
    const postings = inLockOrder(t.tenantId, postingsOf(t));
    // Check every posting before applying any, as the database transaction's rollback would.
    for (const p of postings) {
      const id = accountId(t.tenantId, p.account);
      const account = this.accounts.get(id);
      requireAccountCurrency(account?.currency ?? null, t.amount);
      const held = p.account.kind === 'USER' ? this.heldOn(id, t.createdAt) : 0;
      if (p.amount < 0 && !mayGoNegative(p.account) && (account?.balance ?? 0) - held < -p.amount) throw shortOf(p.account.kind);
    }
    for (const p of postings) {
      const id = accountId(t.tenantId, p.account);
      const account = this.accounts.get(id) ?? { id, tenantId: t.tenantId, ref: p.account, currency: t.amount.currency, balance: 0 };
      account.balance += p.amount;
      this.accounts.set(id, account);
      this.entries.push({
        transactionId: t.id,
        accountId: id,
        amount: p.amount,
        createdAt: t.createdAt,
        seq: this.entries.length + 1,
        balanceAfter: account.balance,
      });
    }
    this.transactions.set(t.id, t);
    this.outbox?.record([transactionCreated(t)]);
    return t;
  }
}

/** Is `a` later than `b` in the order entries were applied (time, then sequence)? */
const appliedAfter = (a: { createdAt: Date; seq: number }, b: { createdAt: Date; seq: number } | null): boolean =>
  b === null || a.createdAt.getTime() > b.createdAt.getTime() || (a.createdAt.getTime() === b.createdAt.getTime() && a.seq > b.seq);

/** Is `a` before `b` in the listing order (newest first, then id descending)? */
const before = (a: { createdAt: Date; id: string }, b: { createdAt: Date; id: string }): boolean => {
  const ta = a.createdAt.getTime();
  const tb = b.createdAt.getTime();
  return ta > tb || (ta === tb && a.id > b.id);
};
