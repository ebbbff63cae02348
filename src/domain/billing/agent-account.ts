import type { Order, OrderStatus } from '../booking/order.js';
import { DomainError } from '../shared/errors.js';
import type { FundingEntry } from './agent-accounts.port.js';
import type { Money } from '../shared/money.js';
import { MAX_TRANSACTION_AMOUNT, shardOf, TENANT_ACCOUNT_SHARDS } from '../wallet/ledger.js';

/**
 * How an agent pays for its bookings (CONTRACT §6.4): `prepaid`, every order covered by balance
 * plus credit limit when it is placed or held; `invoice`, billed later, never checked (every agent
 * unless told otherwise).
 */
export const BILLING_MODES = ['prepaid', 'invoice'] as const;
export type BillingMode = (typeof BILLING_MODES)[number];
export const DEFAULT_BILLING_MODE: BillingMode = 'invoice';

/**
 * The reserved book of the ledger the agents' accounts live in: written in the `tenant_id` of
 * the ledger's rows like a tenant, never a real tenant's id (those are `tnt_…`).
 */
export const BOOKING_BOOK = 'booking';

/**
 * An account of the booking book: an agent's, an operator's payable, the platform's revenue, where
 * agents' money came from. Test money is never live money (CONTRACT §6.7): the accounts every
 * agent's money meets (payables, revenue, funding) exist twice, live and sandbox (`livemode`), and a
 * sandbox order moves only sandbox ones. An agent's own account is of its agent's mode already.
 */
export type BookingAccountRef =
  | { readonly kind: 'AGENT'; readonly agentId: string }
  | { readonly kind: 'OPERATOR_PAYABLE'; readonly operatorCode: string; readonly livemode: boolean }
  /** The platform's revenue, sharded (by order id) so that bookings do not queue on one row. */
  | { readonly kind: 'REVENUE'; readonly shard: number; readonly livemode: boolean }
  /** Money agents paid in: the one account of the book that goes below zero as money comes in. */
  | { readonly kind: 'FUNDING'; readonly shard: number; readonly livemode: boolean };

/** What the id of a sandbox account of the booking book has after the book: `booking:test:revenue:3`. */
const SANDBOX_PART = 'test:';

/** The ledger's id of a booking account; accounts are locked in the order of these ids. */
export const bookingAccountId = (a: BookingAccountRef): string => {
  if (a.kind === 'AGENT') return `${BOOKING_BOOK}:agent:${a.agentId}`;
  const book = `${BOOKING_BOOK}:${a.livemode ? '' : SANDBOX_PART}`;
  switch (a.kind) {
    case 'OPERATOR_PAYABLE':
      return `${book}operator_payable:${a.operatorCode}`;
    case 'REVENUE':
      return `${book}revenue:${a.shard}`;
    case 'FUNDING':
      return `${book}funding:${a.shard}`;
  }
};

/** The `user_id` the ledger keeps for the account: the agent or the operator it belongs to. */
export const bookingAccountOwner = (a: BookingAccountRef): string | null =>
  a.kind === 'AGENT' ? a.agentId : a.kind === 'OPERATOR_PAYABLE' ? a.operatorCode : null;

export const agentAccount = (agentId: string): BookingAccountRef => ({ kind: 'AGENT', agentId });

/** What an agent's account shows (`billing` of `GET /agent/account`): `spendable = balance + creditLimit − held`. */
export interface AgentBilling {
  readonly mode: BillingMode;
  readonly balance: Money;
  readonly held: Money;
  readonly creditLimit: Money;
  readonly spendable: Money;
  /** Below this spendable the agent is told (`agent_account.low_balance`); null: never. */
  readonly lowBalanceAlert: Money | null;
}

/** The billing of an account with these figures. */
export const billingOf = (
  f: { mode: BillingMode; balance: number; held: number; creditLimit: number; lowBalanceAlert: number | null },
  currency: string,
): AgentBilling => ({
  mode: f.mode,
  balance: { amount: f.balance, currency },
  held: { amount: f.held, currency },
  creditLimit: { amount: f.creditLimit, currency },
  spendable: { amount: f.balance + f.creditLimit - f.held, currency },
  lowBalanceAlert: f.lowBalanceAlert === null ? null : { amount: f.lowBalanceAlert, currency },
});

/** The statement line types of CONTRACT §6.4, and the ledger transaction types that record them. */
export const STATEMENT_LINE_TYPES = ['FUNDING', 'BOOKING', 'REFUND', 'FEE', 'ADJUSTMENT'] as const;
export type StatementLineType = (typeof STATEMENT_LINE_TYPES)[number];
/** The ledger's transaction type of each statement line type (a wallet's REFUND is another thing). */
export const LEDGER_TYPE_OF_LINE = {
  FUNDING: 'FUNDING',
  BOOKING: 'BOOKING',
  REFUND: 'ORDER_REFUND',
  FEE: 'FEE',
  ADJUSTMENT: 'ADJUSTMENT',
} as const satisfies Record<StatementLineType, string>;
export type BookingTransactionType = (typeof LEDGER_TYPE_OF_LINE)[StatementLineType];
export const LINE_OF_LEDGER_TYPE: Readonly<Record<BookingTransactionType, StatementLineType>> = {
  FUNDING: 'FUNDING',
  BOOKING: 'BOOKING',
  ORDER_REFUND: 'REFUND',
  FEE: 'FEE',
  ADJUSTMENT: 'ADJUSTMENT',
};

/** A posting of the booking book: a signed amount on one account (credit > 0, debit < 0). */
export interface BookingPosting {
  readonly account: BookingAccountRef;
  readonly amount: number;
}

/** A transaction of the booking book, with its balanced postings in lock order. */
export interface BookingTransaction {
  readonly id: string;
  readonly type: BookingTransactionType;
  readonly agentId: string;
  readonly amount: Money;
  /** The order (for bookings, refunds and fees) or the payment's reference (for funding). */
  readonly reference: string | null;
  /** The agent's reference of the order. */
  readonly agentReference: string | null;
  readonly postings: readonly BookingPosting[];
  /** Who made it, for the ledger's initiator columns: `agent:agt_…`, `operator:CODE`, `admin`. */
  readonly initiator: string;
  readonly createdAt: Date;
}

/**
 * The transaction ids of an order's money: one each at most, so a repeat can never record twice.
 * A fee sorts after its refund (same instant), as a statement lists them.
 */
export const orderTransactionId = (orderId: string, type: 'BOOKING' | 'ORDER_REFUND' | 'FEE'): string =>
  `txn_${orderId}_${type === 'BOOKING' ? 'sale' : type === 'ORDER_REFUND' ? 'refund' : 'refund_fee'}`;

/** Postings sorted into the one lock order (by account id), zero amounts left out. */
const ordered = (postings: readonly BookingPosting[]): BookingPosting[] =>
  postings
    .filter((p) => p.amount !== 0)
    .sort((x, y) => {
      const a = bookingAccountId(x.account);
      const b = bookingAccountId(y.account);
      return a < b ? -1 : a > b ? 1 : 0;
    });

/**
 * The operator's share of an order: its base fare, never more than the price. An order booked
 * before base fares were kept gives its operator the whole price; one without an operator, none.
 */
export const operatorShareOf = (order: Order): number =>
  order.operatorCode === null ? 0 : Math.min(order.baseFare?.amount ?? order.price.amount, order.price.amount);

/** The sale of a confirmed order: the agent pays its price, the operator's payable gets the base fare, revenue the rest. */
export const saleOf = (order: Order, initiator: string, at: Date): BookingTransaction => {
  const price = order.price.amount;
  const share = operatorShareOf(order);
  return {
    id: orderTransactionId(order.id, 'BOOKING'),
    type: 'BOOKING',
    agentId: order.agentId,
    amount: order.price,
    reference: order.id,
    agentReference: order.agentReference,
    postings: ordered([
      { account: agentAccount(order.agentId), amount: -price },
      ...(order.operatorCode === null
        ? []
        : [{ account: { kind: 'OPERATOR_PAYABLE', operatorCode: order.operatorCode, livemode: order.livemode } as const, amount: share }]),
      { account: { kind: 'REVENUE', shard: shardOf(order.id), livemode: order.livemode }, amount: price - share },
    ]),
    initiator,
    createdAt: at,
  };
};

/**
 * What undoing a sale gives back: the sale's postings reversed (the agent gets the price back,
 * the operator's payable and revenue give back what they got), then, when a fee is kept, the fee
 * charged to the agent as revenue. So a cancel refunds the price less the fee, and the fee stays
 * revenue; an operator's cancel (no fee) undoes the sale entirely.
 */
export const refundOf = (
  sale: { readonly postings: readonly BookingPosting[]; readonly amount: Money },
  order: Order,
  fee: number,
  initiator: string,
  at: Date,
): BookingTransaction[] => {
  const refund: BookingTransaction = {
    id: orderTransactionId(order.id, 'ORDER_REFUND'),
    type: 'ORDER_REFUND',
    agentId: order.agentId,
    amount: sale.amount,
    reference: order.id,
    agentReference: order.agentReference,
    postings: ordered(sale.postings.map((p) => ({ account: p.account, amount: -p.amount }))),
    initiator,
    createdAt: at,
  };
  if (fee <= 0) return [refund];
  const feeTx: BookingTransaction = {
    id: orderTransactionId(order.id, 'FEE'),
    type: 'FEE',
    agentId: order.agentId,
    amount: { amount: fee, currency: sale.amount.currency },
    reference: order.id,
    agentReference: order.agentReference,
    postings: ordered([
      { account: agentAccount(order.agentId), amount: -fee },
      { account: { kind: 'REVENUE', shard: shardOf(order.id), livemode: order.livemode }, amount: fee },
    ]),
    initiator,
    createdAt: at,
  };
  return [refund, feeTx];
};

/** Money an agent paid in, credited to its account (from the funding of its agent's mode). */
export const fundingOf = (e: FundingEntry): BookingTransaction => ({
  id: e.id,
  type: 'FUNDING',
  agentId: e.agentId,
  amount: e.amount,
  reference: e.reference,
  agentReference: null,
  postings: ordered([
    { account: { kind: 'FUNDING', shard: shardOf(e.id), livemode: e.livemode }, amount: -e.amount.amount },
    { account: agentAccount(e.agentId), amount: e.amount.amount },
  ]),
  initiator: 'admin',
  createdAt: e.at,
});

/**
 * What the money of an order does when it changes from `previous` (as it was true then; null
 * for a new order) to `order.status` (CONTRACT §6.4):
 * - `hold`: a new hold or pending order holds its price until its deadline (a pending transfer);
 * - `extend`: a hold confirmed with an on-request operator keeps holding it, until the confirmation deadline;
 * - `charge`: an order confirmed at once takes its price; `capture`: a held or pending one is confirmed;
 * - `void`: a hold released, a pending order rejected or cancelled gives its price back;
 * - `lapse`: a hold that expired or a pending order timed out (its transfer lapsed at the same instant);
 * - `refund`: a confirmed order cancelled gives back its refund (the fee stays revenue).
 */
export type OrderMoney =
  | { readonly kind: 'hold'; readonly expiresAt: Date }
  | { readonly kind: 'extend'; readonly expiresAt: Date }
  | { readonly kind: 'charge' }
  | { readonly kind: 'capture' }
  | { readonly kind: 'void' }
  | { readonly kind: 'lapse' }
  | { readonly kind: 'refund'; readonly fee: number };

export const orderMoneyOf = (previous: OrderStatus | null, order: Order): OrderMoney | null => {
  const to = order.status;
  if (previous === to) return null;
  if (previous === null) {
    if (to === 'ON_HOLD' && order.holdExpiresAt !== null) return { kind: 'hold', expiresAt: order.holdExpiresAt };
    if (to === 'PENDING' && order.confirmationDeadline !== null) return { kind: 'hold', expiresAt: order.confirmationDeadline };
    if (to === 'CONFIRMED') return { kind: 'charge' };
    return null;
  }
  if (previous === 'ON_HOLD' && to === 'PENDING' && order.confirmationDeadline !== null)
    return { kind: 'extend', expiresAt: order.confirmationDeadline };
  if ((previous === 'ON_HOLD' || previous === 'PENDING') && to === 'CONFIRMED') return { kind: 'capture' };
  if (to === 'EXPIRED' || (to === 'REJECTED' && order.rejectionReason === 'operator-timeout')) return { kind: 'lapse' };
  if (to === 'RELEASED' || to === 'REJECTED' || (previous === 'PENDING' && to === 'CANCELLED')) return { kind: 'void' };
  if (previous === 'CONFIRMED' && to === 'CANCELLED') return { kind: 'refund', fee: order.fee?.amount ?? 0 };
  return null;
};

/** `insufficient-funds` for a prepaid agent: what it may still spend is in the problem body. */
export const spendableShort = (spendable: Money): DomainError =>
  new DomainError('insufficient-funds', {
    message: "The agent's balance and credit limit do not cover this order.",
    details: { spendable },
  });

/** Checks an amount an admin gives in minor units: a positive whole number (fund, credit limit, alert). */
export const requireAmount = (what: string, value: number, allowZero = false): number => {
  if (!Number.isSafeInteger(value) || value < (allowZero ? 0 : 1) || value > MAX_TRANSACTION_AMOUNT) {
    throw new DomainError('invalid-request', {
      message: `${what} must be a whole number of minor units from ${allowZero ? 0 : 1} to ${MAX_TRANSACTION_AMOUNT}.`,
    });
  }
  return value;
};

/** How many revenue and funding shards the booking book has (as many as a tenant's). */
export const BOOKING_SHARDS = TENANT_ACCOUNT_SHARDS;

/** The booking account a ledger account id names (`bookingAccountId` read back); null for any other id. */
export const bookingAccountOf = (id: string): BookingAccountRef | null => {
  const m = /^booking:(test:)?(agent|operator_payable|revenue|funding):(.+)$/.exec(id);
  if (m === null) return null;
  const [, sandbox, kind, rest] = m as unknown as [string, string | undefined, string, string];
  const livemode = sandbox === undefined;
  switch (kind) {
    case 'agent':
      return { kind: 'AGENT', agentId: rest };
    case 'operator_payable':
      return { kind: 'OPERATOR_PAYABLE', operatorCode: rest, livemode };
    case 'revenue':
      return { kind: 'REVENUE', shard: Number(rest), livemode };
    default:
      return { kind: 'FUNDING', shard: Number(rest), livemode };
  }
};
