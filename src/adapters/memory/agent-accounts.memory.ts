import {
  agentAccount,
  billingOf,
  bookingAccountId,
  fundingOf,
  LINE_OF_LEDGER_TYPE,
  orderMoneyOf,
  orderTransactionId,
  refundOf,
  saleOf,
  spendableShort,
  type AgentBilling,
  type BillingMode,
  type BookingAccountRef,
  type BookingTransaction,
} from '../../domain/billing/agent-account.js';
import type {
  AgentAccounts,
  FundingEntry,
  StatementLine,
  StatementQuery,
  StatementStream,
} from '../../domain/billing/agent-accounts.port.js';
import type { Order, OrderStatus } from '../../domain/booking/order.js';
import type { Money } from '../../domain/shared/money.js';
import { currencyMismatch } from '../../domain/wallet/ledger.js';
import type { PendingTransferStatus } from '../../domain/wallet/pending-transfer.js';
import { fallsBelow, lowBalance } from '../../domain/webhooks/events.js';
import type { MemoryOutbox } from './webhooks.memory.js';

interface Account {
  readonly kind: BookingAccountRef['kind'];
  readonly currency: string;
  balance: number;
  mode: BillingMode;
  creditLimit: number;
  lowBalanceAlert: number | null;
}

/** An order's hold: the pending transfer PostgreSQL keeps in `pending_transfers`, with the same states. */
interface Hold {
  readonly agentId: string;
  readonly amount: number;
  status: PendingTransferStatus;
  expiresAt: Date;
}

interface Entry {
  readonly transaction: BookingTransaction;
  readonly amount: number;
}

/**
 * The agents' accounts in process memory, deciding as PostgreSQL does: each write checks
 * everything before it changes anything, without awaiting in between, so it is atomic among the
 * calls of one process. There is no rollback in memory, so `precheck` refuses a booking the
 * agent cannot pay before the order is stored.
 */
export class MemoryAgentAccounts implements AgentAccounts {
  private readonly accounts = new Map<string, Account>();
  private readonly holds = new Map<string, Hold>();
  private readonly transactions = new Map<string, BookingTransaction>();
  /** Each account's entries, in the order they were written (times never go back in a run). */
  private readonly entries = new Map<string, Entry[]>();

  constructor(private readonly outbox?: MemoryOutbox) {}

  async billingOf(agentId: string, currency: string, at: Date): Promise<AgentBilling> {
    return this.billing(agentId, currency, at);
  }

  async setBilling(agentId: string, currency: string, mode: BillingMode, creditLimit: number | null, at: Date): Promise<AgentBilling> {
    const a = this.agent(agentId, currency);
    const before = this.billing(agentId, currency, at);
    const limit = creditLimit ?? a.creditLimit;
    const spendable = a.balance + limit - this.held(agentId, at);
    if (mode === 'prepaid' && spendable < 0) throw spendableShort({ amount: spendable, currency: a.currency });
    a.mode = mode;
    a.creditLimit = limit;
    const after = this.billing(agentId, currency, at);
    this.tell(agentId, before.spendable.amount, after, at);
    return after;
  }

  async setLowBalanceAlert(agentId: string, currency: string, amount: number | null, at: Date): Promise<AgentBilling> {
    this.agent(agentId, currency).lowBalanceAlert = amount;
    return this.billing(agentId, currency, at);
  }

  async fund(e: FundingEntry): Promise<AgentBilling> {
    this.requireCurrency(e.agentId, e.amount.currency);
    this.write(fundingOf(e));
    return this.billing(e.agentId, e.amount.currency, e.at);
  }

  async precheck(order: Order, at: Date): Promise<void> {
    this.requireCurrency(order.agentId, order.price.currency);
    this.requireCovered(order.agentId, order.price, at);
  }

  async follow(previous: OrderStatus | null, order: Order, at: Date, by: string): Promise<void> {
    const move = orderMoneyOf(previous, order);
    if (move === null) return;
    const hold = this.holds.get(order.id);
    switch (move.kind) {
      case 'hold': {
        this.requireCurrency(order.agentId, order.price.currency);
        const before = this.requireCovered(order.agentId, order.price, at);
        this.agent(order.agentId, order.price.currency);
        this.holds.set(order.id, { agentId: order.agentId, amount: order.price.amount, status: 'PENDING', expiresAt: move.expiresAt });
        this.tell(order.agentId, before, this.billing(order.agentId, order.price.currency, at), at);
        return;
      }
      case 'extend':
        if (hold?.status === 'PENDING') hold.expiresAt = move.expiresAt;
        return;
      case 'charge': {
        this.requireCurrency(order.agentId, order.price.currency);
        const before = this.requireCovered(order.agentId, order.price, at);
        this.write(saleOf(order, by, at));
        this.tell(order.agentId, before, this.billing(order.agentId, order.price.currency, at), at);
        return;
      }
      case 'capture':
        if (hold !== undefined && (hold.status === 'PENDING' || hold.status === 'EXPIRED')) hold.status = 'CAPTURED';
        this.write(saleOf(order, by, at));
        return;
      case 'void':
        if (hold?.status === 'PENDING') hold.status = 'VOIDED';
        return;
      case 'lapse':
        if (hold?.status === 'PENDING') hold.status = 'EXPIRED';
        return;
      case 'refund': {
        const sale = this.transactions.get(orderTransactionId(order.id, 'BOOKING'));
        if (sale === undefined) return;
        for (const t of refundOf(sale, order, move.fee, by, at)) this.write(t);
        return;
      }
    }
  }

  async releaseHolds(orderIds: readonly string[], at: Date): Promise<void> {
    void at; // a void is recorded as of now: memory keeps no resolution time
    for (const id of orderIds) {
      const hold = this.holds.get(id);
      if (hold?.status === 'PENDING') hold.status = 'VOIDED';
    }
  }

  async recordLapses(at: Date, limit: number): Promise<number> {
    let n = 0;
    for (const hold of this.holds.values()) {
      if (n >= limit) break;
      if (hold.status === 'PENDING' && hold.expiresAt.getTime() <= at.getTime()) {
        hold.status = 'EXPIRED';
        n += 1;
      }
    }
    return n;
  }

  async statement(query: StatementQuery, currency: string): Promise<StatementStream> {
    const id = bookingAccountId(
      'agentId' in query.account
        ? agentAccount(query.account.agentId)
        : { kind: 'OPERATOR_PAYABLE', operatorCode: query.account.operatorCode, livemode: query.account.livemode },
    );
    const cur = this.accounts.get(id)?.currency ?? currency;
    const all = this.entries.get(id) ?? [];
    const from = query.from.getTime();
    const to = query.to.getTime();
    const opening = all.filter((e) => e.transaction.createdAt.getTime() < from).reduce((s, e) => s + e.amount, 0);
    const within = all.filter((e) => e.transaction.createdAt.getTime() >= from && e.transaction.createdAt.getTime() < to);
    async function* lines(): AsyncGenerator<StatementLine> {
      let balance = opening;
      for (const e of within) {
        balance += e.amount;
        const type = LINE_OF_LEDGER_TYPE[e.transaction.type];
        yield {
          at: e.transaction.createdAt,
          type,
          orderId: type === 'FUNDING' || type === 'ADJUSTMENT' ? null : e.transaction.reference,
          agentReference: e.transaction.agentReference,
          amount: { amount: e.amount, currency: cur },
          balance: { amount: balance, currency: cur },
          transactionId: e.transaction.id,
        };
      }
    }
    return { currency: cur, opening: { amount: opening, currency: cur }, lines: lines() };
  }

  /** What the agent's unexpired holds hold at `at`. */
  private held(agentId: string, at: Date): number {
    let sum = 0;
    for (const h of this.holds.values())
      if (h.agentId === agentId && h.status === 'PENDING' && h.expiresAt.getTime() > at.getTime()) sum += h.amount;
    return sum;
  }

  private billing(agentId: string, currency: string, at: Date): AgentBilling {
    const a = this.accounts.get(bookingAccountId(agentAccount(agentId)));
    return billingOf(
      {
        mode: a?.mode ?? 'invoice',
        balance: a?.balance ?? 0,
        held: this.held(agentId, at),
        creditLimit: a?.creditLimit ?? 0,
        lowBalanceAlert: a?.lowBalanceAlert ?? null,
      },
      a?.currency ?? currency,
    );
  }

  /** The spendable before `amount` is spent; a prepaid agent that cannot cover it is refused. */
  private requireCovered(agentId: string, amount: Money, at: Date): number {
    const b = this.billing(agentId, amount.currency, at);
    if (b.mode === 'prepaid' && b.spendable.amount < amount.amount) throw spendableShort(b.spendable);
    return b.spendable.amount;
  }

  private requireCurrency(agentId: string, currency: string): void {
    const a = this.accounts.get(bookingAccountId(agentAccount(agentId)));
    if (a !== undefined && a.currency !== currency) throw currencyMismatch(a.currency, currency);
  }

  private agent(agentId: string, currency: string): Account {
    return this.account(agentAccount(agentId), currency);
  }

  private account(ref: BookingAccountRef, currency: string): Account {
    const id = bookingAccountId(ref);
    let a = this.accounts.get(id);
    if (a === undefined) {
      a = { kind: ref.kind, currency, balance: 0, mode: 'invoice', creditLimit: 0, lowBalanceAlert: null };
      this.accounts.set(id, a);
    }
    return a;
  }

  /** Records a balanced transaction once: a second with the same id is refused, as the primary key refuses it in PostgreSQL. */
  private write(t: BookingTransaction): void {
    if (this.transactions.has(t.id)) throw new Error(`transaction ${t.id} is recorded already`);
    if (t.postings.reduce((s, p) => s + p.amount, 0) !== 0) throw new Error(`transaction ${t.id} does not balance`);
    this.transactions.set(t.id, t);
    for (const p of t.postings) {
      const id = bookingAccountId(p.account);
      this.account(p.account, t.amount.currency).balance += p.amount;
      const list = this.entries.get(id) ?? [];
      list.push({ transaction: t, amount: p.amount });
      this.entries.set(id, list);
    }
  }

  private tell(agentId: string, before: number, after: AgentBilling, at: Date): void {
    if (fallsBelow(after.lowBalanceAlert?.amount ?? null, before, after.spendable.amount))
      this.outbox?.record([lowBalance(agentId, after, at)]);
  }
}
