import type { Money } from '../shared/money.js';
import type { Initiator, Transaction, TransactionType } from './transaction.js';

/** What every write carries. */
interface NewEntryCommon {
  /** A new `txn_…` id. */
  readonly id: string;
  readonly tenantId: string;
  readonly amount: Money;
  readonly initiatedBy: Initiator;
  readonly createdAt: Date;
}

export interface NewTopUp extends NewEntryCommon {
  readonly userId: string;
  readonly reference: string;
}

export interface NewPayment extends NewEntryCommon {
  readonly userId: string;
  readonly reference: string;
  readonly description: string | null;
  /** The authorization this payment captures, when it is a capture. */
  readonly authorizationId?: string | null;
}

export interface NewTransfer extends NewEntryCommon {
  readonly userId: string;
  readonly toUserId: string;
  readonly note: string | null;
}

export interface NewRefund extends Omit<NewEntryCommon, 'amount'> {
  readonly paymentId: string;
  /** How much to refund, in the payment's currency; null refunds everything that remains. */
  readonly amount: Money | null;
}

/**
 * The double-entry ledger. Every write is checked by the domain before anything is written, the
 * same whichever adapter stores it: an amount of 1..MAX_TRANSACTION_AMOUNT minor units
 * (`invalid-request`), a transfer to someone else (`same-user-transfer`), money in the currency of
 * every account it moves (`currency-mismatch`: an account keeps the currency of its first
 * posting), refunds of payments only (`not-refundable`), in the payment's currency, never more
 * in total than the payment (`refund-exceeds-payment`). The database's CHECK constraints stay
 * behind these rules as a backstop.
 *
 * The ledger: each write records one transaction and its balanced entries in one
 * database transaction, and moves the account balances with them, so the sum of entries always
 * equals the balances. A user's balance never goes below zero, whatever runs concurrently: the
 * database decides (conditional update under the row lock, and a CHECK behind it), never a lock
 * in the process. Accounts are locked in one global order, so concurrent writes do not deadlock.
 * Each recorded transaction records `transaction.created` (`transactionCreated`) in the same
 * database transaction; a refused or replayed write records nothing.
 *
 * Each write is atomic on its own; made inside a unit of work (`UnitOfWork`, of the
 * application) it takes part in it. Retries are made once-only above the ledger, by an
 * idempotency key stored with the write (`IdempotentWrites`: in the same unit of work, or in the
 * same statement where an adapter offers `OneStatementWrites`): the ledger itself records every
 * write it is given.
 */
export interface Ledger {
  /** Credits the user from the tenant's funding account. */
  topUp(entry: NewTopUp): Promise<Transaction>;
  /** Debits the user to the tenant's settlement account. Throws `insufficient-funds` when short. */
  pay(entry: NewPayment): Promise<Transaction>;
  /** Moves money between two users of one tenant. Throws `insufficient-funds` when the sender is short. */
  transfer(entry: NewTransfer): Promise<Transaction>;
  /**
   * Gives back all or part of a payment of the tenant to its payer. Throws
   * `transaction-not-found` when the tenant has no such transaction, `not-refundable` when it is
   * not a payment, `refund-exceeds-payment` when the amount exceeds what remains unrefunded
   * (checked under the payment's row lock, so concurrent refunds never exceed the payment).
   */
  refund(entry: NewRefund): Promise<Transaction>;
  /** The user's available balance in minor units; 0 for a user with no ledger account yet. */
  balanceOf(tenantId: string, userId: string): Promise<number>;
  /** Balances of several users of one tenant; users with no account are absent (balance 0). */
  balancesOf(tenantId: string, userIds: readonly string[]): Promise<ReadonlyMap<string, number>>;
  /**
   * The user's balance just before `instant`: after every entry made earlier (0 before the
   * first). Read from the last such entry's recorded balance, however long the history.
   */
  balanceBefore(tenantId: string, userId: string, instant: Date): Promise<number>;
  /**
   * The entries of the user's account made in `[from, to)`, in the order they were applied,
   * strictly after `after`, at most `limit`: one page of a statement, each with the balance it left.
   */
  statementLines(
    tenantId: string,
    userId: string,
    range: { readonly from: Date; readonly to: Date },
    after: StatementPosition | null,
    limit: number,
  ): Promise<StatementLine[]>;
}

/** Where a statement's page stops: its last line's time and order of application. */
export interface StatementPosition {
  readonly at: Date;
  readonly seq: number;
}

/** One line of an account statement: an entry, with the transaction it belongs to. */
export interface StatementLine extends StatementPosition {
  readonly transactionId: string;
  readonly type: TransactionType;
  readonly reference: string | null;
  /** Signed: a credit of the account is positive, a debit negative. */
  readonly amount: number;
  /** The account's balance just after this entry. */
  readonly balance: number;
}
