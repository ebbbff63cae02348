import type { AccountRef } from './ledger.js';
import type { Initiator, Transaction } from './transaction.js';
import type { Cursor } from '../shared/page.js';
import type { PendingTransfer, PendingTransferStatus } from './pending-transfer.js';
import type { TransactionScope } from './scope.js';

/**
 * A pending transfer to hold: all of one but what holding, capturing and resolving it set
 * (`captured`, `status`, `resolvedAt`). Its `id` is a new one (an authorization's `auth_…`).
 */
export type NewPendingTransfer = Omit<PendingTransfer, 'captured' | 'status' | 'resolvedAt'>;

export interface NewCapture {
  readonly tenantId: string;
  readonly pendingTransferId: string;
  /** A new `txn_…` id for the PAYMENT the capture records. */
  readonly transactionId: string;
  /** How much to capture; null captures everything that remains. */
  readonly amount: number | null;
  /** Resolves the transfer with this capture, whatever remains. */
  readonly final: boolean;
  readonly initiatedBy: Initiator;
  readonly at: Date;
}

/**
 * Pending transfers on ledger accounts (the one two-phase mechanism of the ledger): a hold of
 * money on an account, captured in one or several parts, voided, or lapsing at its deadline,
 * resolved at most once whatever runs concurrently.
 *
 * - `hold` takes the amount from the account's available balance (ledger balance minus what its
 *   unexpired pending transfers hold at that instant), decided under the account's lock: short
 *   → `insufficient-funds`; concurrent holds and payments never overspend.
 * - `capture` records a PAYMENT of the captured amount (with the transfer's id as
 *   `authorizationId`) under the transfer's lock: not pending (resolved or lapsed) →
 *   `authorization-not-pending`; more than remains → `exceeds-authorization`.
 * - `void` resolves a pending transfer; a repeated void answers the voided transfer, unchanged.
 * - `expireDue` records the EXPIRED transition of lapsed transfers, at most `limit` of them, each
 *   once across callers; reads never wait for it. `expireNow` brings one authorization's deadline
 *   to now and records the same transition.
 * - A wallet authorization's transfer (owner kind `wallet-authorization`) records its tenant's
 *   `authorization.*` event with each change, in the change's transaction.
 */
export interface PendingTransfers {
  hold(entry: NewPendingTransfer): Promise<PendingTransfer>;
  capture(entry: NewCapture): Promise<{ transfer: PendingTransfer; transaction: Transaction }>;
  void(tenantId: string, id: string, at: Date): Promise<{ transfer: PendingTransfer; changed: boolean }>;
  find(tenantId: string, id: string): Promise<PendingTransfer | null>;
  /** What the account's pending transfers hold at `at`. */
  heldOn(tenantId: string, account: AccountRef, at: Date): Promise<number>;
  /**
   * What the account's pending transfers held at a past instant `at`: those made by then, not
   * resolved or lapsed by then, less what their captures had taken by then.
   */
  heldThen(tenantId: string, account: AccountRef, at: Date): Promise<number>;
  /**
   * Records EXPIRED on up to `limit` wallet authorizations' transfers lapsed by `at`; answers those
   * this call recorded. An order's transfer lapses with its order (the booking's lapse job).
   */
  expireDue(at: Date, limit: number): Promise<PendingTransfer[]>;
  /**
   * Makes one wallet authorization's transfer reach its deadline at `at` and records its lapse as
   * `expireDue` does (EXPIRED, resolved at that deadline, its `authorization.expired` event in the
   * same transaction), under the transfer's lock; answers it expired. Unknown, another tenant's or
   * not an authorization → `authorization-not-found`; captured, voided or lapsed already at `at`
   * → `authorization-not-pending`: of concurrent calls exactly one expires it.
   */
  expireNow(tenantId: string, id: string, at: Date): Promise<PendingTransfer>;
  /** A wallet's authorizations as `listing` asks, newest first (then id descending). */
  listAuthorizations(listing: AuthorizationListing): Promise<PendingTransfer[]>;
}

/** Which authorizations a listing asks for. */
export interface AuthorizationListing {
  /** The tenant's, or one person's (never widened by the other fields). */
  readonly scope: TransactionScope;
  /** Only those of this status as true at `now`; all when absent. */
  readonly status?: PendingTransferStatus | undefined;
  /** Strictly after this position of the order (newest first). */
  readonly after: Cursor | null;
  readonly limit: number;
  readonly now: Date;
}
