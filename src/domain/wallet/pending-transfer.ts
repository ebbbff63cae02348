import { DomainError } from '../shared/errors.js';
import type { Money } from '../shared/money.js';
import type { AccountRef } from './ledger.js';

/** The states of a pending transfer; every one but PENDING is final. */
export const PENDING_TRANSFER_STATUSES = ['PENDING', 'CAPTURED', 'VOIDED', 'EXPIRED'] as const;
export type PendingTransferStatus = (typeof PENDING_TRANSFER_STATUSES)[number];

/** The owner kind of a wallet authorization's pending transfer (its id is the person's user id). */
export const AUTHORIZATION_OWNER = 'wallet-authorization';

/** Who a pending transfer is for: a wallet authorization, or a booking's order. */
export interface PendingTransferOwner {
  readonly kind: string;
  readonly id: string;
}

/**
 * Money held on a ledger account: it counts against the account's available balance from the
 * moment it is held until it is captured (in one or several parts), voided or lapses at
 * `expiresAt`. It is resolved at most once. The stored status says what was recorded; the
 * status at an instant (`statusAt`) is what every read and every balance check uses, so a lapsed
 * hold stops counting at its deadline whatever a background job has recorded yet.
 */
export interface PendingTransfer {
  readonly id: string;
  readonly tenantId: string;
  readonly account: AccountRef;
  readonly owner: PendingTransferOwner;
  readonly reference: string;
  readonly amount: Money;
  readonly captured: number;
  readonly status: PendingTransferStatus;
  readonly expiresAt: Date;
  readonly createdAt: Date;
  readonly resolvedAt: Date | null;
}

/** The status of `t` at `now`: a PENDING transfer past its deadline is EXPIRED. */
export const statusAt = (t: PendingTransfer, now: Date): PendingTransferStatus =>
  t.status === 'PENDING' && t.expiresAt.getTime() <= now.getTime() ? 'EXPIRED' : t.status;

/** What `t` still holds at `now`: what remains uncaptured while it is pending, else nothing. */
export const heldAt = (t: PendingTransfer, now: Date): number => (statusAt(t, now) === 'PENDING' ? t.amount.amount - t.captured : 0);

/** What remains to capture, whatever the status. */
export const remainingOf = (t: PendingTransfer): number => t.amount.amount - t.captured;

/** `t` as the lapse is recorded: EXPIRED, resolved at its deadline. */
export const lapsed = (t: PendingTransfer): PendingTransfer => ({ ...t, status: 'EXPIRED', resolvedAt: t.expiresAt });

/**
 * A wallet authorization's transfer `t` made to reach its deadline at `now` (a sandbox's test
 * helper): its deadline becomes `now` and it lapses there, as the lapse of any other is recorded.
 * Not a wallet authorization's → `authorization-not-found`; resolved or lapsed already →
 * `authorization-not-pending`, so it lapses at most once.
 */
export const lapsedNow = (t: PendingTransfer, now: Date): PendingTransfer => {
  if (t.owner.kind !== AUTHORIZATION_OWNER) throw pendingTransferNotFound();
  if (statusAt(t, now) !== 'PENDING') throw notPending();
  return lapsed({ ...t, expiresAt: now });
};

export const pendingTransferNotFound = (): DomainError => new DomainError('authorization-not-found');
export const notPending = (): DomainError => new DomainError('authorization-not-pending');

/**
 * The amount a capture of `t` at `now` takes: `requested`, or everything that remains when null.
 * Refused with `authorization-not-pending` once `t` is resolved or lapsed, `exceeds-authorization`
 * above what remains, `invalid-request` for a non-positive amount.
 */
export const captureAmount = (t: PendingTransfer, requested: number | null, now: Date): number => {
  if (statusAt(t, now) !== 'PENDING') throw notPending();
  const remaining = remainingOf(t);
  const amount = requested ?? remaining;
  if (!Number.isSafeInteger(amount) || amount <= 0)
    throw new DomainError('invalid-request', { message: 'A capture takes a positive amount.' });
  if (amount > remaining) throw new DomainError('exceeds-authorization');
  return amount;
};

/**
 * `t` after a capture of `amount` at `now`: CAPTURED when it is final or nothing remains, else
 * still PENDING with more captured.
 */
export const afterCapture = (t: PendingTransfer, amount: number, final: boolean, now: Date): PendingTransfer => {
  const captured = t.captured + amount;
  const done = final || captured === t.amount.amount;
  return { ...t, captured, status: done ? 'CAPTURED' : 'PENDING', resolvedAt: done ? now : null };
};

/**
 * The outcome of voiding `t` at `now`: the voided transfer and whether this call voided it. A
 * transfer already VOIDED answers itself again (no second effect); one captured or lapsed is
 * refused with `authorization-not-pending`.
 */
export const voidOf = (t: PendingTransfer, now: Date): { transfer: PendingTransfer; changed: boolean } => {
  if (t.status === 'VOIDED') return { transfer: t, changed: false };
  if (statusAt(t, now) !== 'PENDING') throw notPending();
  return { transfer: { ...t, status: 'VOIDED', resolvedAt: now }, changed: true };
};
