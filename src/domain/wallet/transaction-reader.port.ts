import type { Cursor } from '../shared/page.js';
import type { TransactionScope } from './scope.js';
import type { Transaction, TransactionType } from './transaction.js';

/** Narrows reads within a scope. Every field is optional; all given ones apply together. */
export interface TransactionFilter {
  /** Only these types; empty or absent means all. */
  readonly types?: readonly TransactionType[];
  /** Created at or after this instant. */
  readonly from?: Date;
  /** Created strictly before this instant. */
  readonly to?: Date;
}

/** Count and total (minor units) of one type. */
export interface TypeSummary {
  readonly type: TransactionType;
  readonly count: number;
  readonly total: number;
}

/**
 * Reads of transactions. Every method takes the scope built from the principal
 * (`transactionScope`), so no adapter can return a transaction outside it: another tenant's
 * never, and for a person only those where they are the user or the counterparty.
 */
export interface TransactionReader {
  /**
   * Transactions in the scope matching the filter, newest first (createdAt, then id, both
   * descending), strictly after `after` in that order when given, at most `limit`. Empty when none.
   */
  list(scope: TransactionScope, filter: TransactionFilter, after: Cursor | null, limit: number): Promise<Transaction[]>;
  /** The transaction when it exists within the scope; null otherwise (unknown or out of scope alike). */
  find(scope: TransactionScope, transactionId: string): Promise<Transaction | null>;
  /**
   * Count and total per type over exactly the transactions `list` would return for the same
   * scope and filter; one row per type in TRANSACTION_TYPES order, zero when none.
   */
  summarize(scope: TransactionScope, filter: TransactionFilter): Promise<TypeSummary[]>;
}
