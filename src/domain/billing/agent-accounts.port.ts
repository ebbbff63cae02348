import type { Order, OrderStatus } from '../booking/order.js';
import type { Money } from '../shared/money.js';
import type { AgentBilling, BillingMode, StatementLineType } from './agent-account.js';

/** One line of a statement: a movement of the account, and the balance after it. */
export interface StatementLine {
  readonly at: Date;
  readonly type: StatementLineType;
  readonly orderId: string | null;
  readonly agentReference: string | null;
  /** Signed: a credit of the account is positive, a debit negative. */
  readonly amount: Money;
  readonly balance: Money;
  /** The ledger transaction it comes from. */
  readonly transactionId: string;
}

/** Money an agent paid in: a FUNDING transaction `id` of its account, from the funding of its mode. */
export interface FundingEntry {
  readonly id: string;
  readonly agentId: string;
  readonly amount: Money;
  readonly reference: string | null;
  readonly at: Date;
  readonly livemode: boolean;
}

/** Which account a statement is of, and the period `[from, to)`. */
export interface StatementQuery {
  /** An agent's account, or an operator's payable (live or sandbox, as the operator is). */
  readonly account: { readonly agentId: string } | { readonly operatorCode: string; readonly livemode: boolean };
  readonly from: Date;
  readonly to: Date;
}

/** A statement being read: its opening balance, then its lines, read from storage a batch at a time. */
export interface StatementStream {
  readonly currency: string;
  readonly opening: Money;
  /** The lines in time order; never more than one batch of them in memory. */
  readonly lines: AsyncIterable<StatementLine>;
}

/**
 * The agents' accounts in the ledger (CONTRACT §6.4), in its reserved booking book, and the money
 * of every order. Run inside a unit of work (`UnitOfWork`), the writes take part in it: the money
 * of an order changes in the same database transaction as its state, or not at all.
 *
 * Concurrency: a hold and a debit of an agent's account are decided under the account's row lock
 * (by the database: a trigger behind every write path), so a prepaid agent's spendable
 * (`balance + creditLimit − held`) never goes below zero, whatever runs at once; what a hold holds
 * stops counting at its deadline (true on read) whether or not a lapse is recorded yet.
 */
export interface AgentAccounts {
  /**
   * The agent's billing at `at`. An agent without an account (created before accounts existed)
   * is `invoice` with nothing moved, in `currency` (its channel's).
   */
  billingOf(agentId: string, currency: string, at: Date): Promise<AgentBilling>;
  /** Sets the mode and credit limit; creates the account when missing. Refused (`insufficient-funds`) when a prepaid spendable would be below zero. */
  setBilling(agentId: string, currency: string, mode: BillingMode, creditLimit: number | null, at: Date): Promise<AgentBilling>;
  /** Sets (or clears, with null) the spendable below which the agent is told `agent_account.low_balance`. */
  setLowBalanceAlert(agentId: string, currency: string, amount: number | null, at: Date): Promise<AgentBilling>;
  /** Records money the agent paid in (a FUNDING transaction `id`); `currency-mismatch` when the account holds another. */
  fund(entry: FundingEntry): Promise<AgentBilling>;
  /**
   * Refuses early (`insufficient-funds` with `spendable`) an order a prepaid agent could not
   * pay, for storage that cannot undo a refused `follow`; storage that can (a database
   * transaction) may decide in `follow` alone and answer here without reading.
   */
  precheck(order: Order, at: Date): Promise<void>;
  /**
   * Moves the money of `order`'s change from `previous` (its status as it was true; null for a
   * new order) to its status (`orderMoneyOf`): holds, extends, charges, captures, voids, lapses or
   * refunds. A hold or a charge a prepaid agent cannot cover → `insufficient-funds` with
   * `spendable`, and nothing is stored: from `follow`, or, inside a unit of work, from the unit's
   * commit (storage may decide last, at the commit, so that a busy account is locked only while
   * an order commits). Each order's sale, refund and
   * fee are recorded at most once. `by` names who made the change (`agent:agt_…`, `operator:C`, `system`).
   */
  follow(previous: OrderStatus | null, order: Order, at: Date, by: string): Promise<void>;
  /** Gives back, at `at`, what these orders hold (their holds released as the key that made them leaked). */
  releaseHolds(orderIds: readonly string[], at: Date): Promise<void>;
  /** Records EXPIRED on up to `limit` order holds lapsed by `at`; answers how many. */
  recordLapses(at: Date, limit: number): Promise<number>;
  /**
   * The statement of an agent's account or an operator's payable over `[from, to)`: the opening
   * balance at `from`, then each entry in time order with the balance after it, read a batch at
   * a time (constant memory, however long the period). An account never written reads as empty,
   * in `currency`.
   */
  statement(query: StatementQuery, currency: string): Promise<StatementStream>;
}
