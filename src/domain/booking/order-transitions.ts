import { DomainError } from '../shared/errors.js';
import {
  orderAt,
  type CancelledBy,
  type Contact,
  type Order,
  type OrderStatus,
  type RejectionReason,
  type ReleaseReason,
} from './order.js';

const MINUTE_MS = 60_000;
const HOUR_MS = 60 * MINUTE_MS;

/** A hold asked for without `seconds` lasts this long (CONTRACT §6.2). */
export const DEFAULT_HOLD_SECONDS = 900;
/** The bounds of a channel's longest hold (its default is `DEFAULT_CHANNEL_TERMS`). */
export const MAX_HOLD_MINUTES_RANGE = { min: 1, max: 1440 } as const;
/** An on-request operator must answer at least this long before the start. */
export const CONFIRMATION_LEAD_MS = HOUR_MS;

/** How long a hold asked for at `now` lasts: what was asked (or 900 s), at most the channel's most, never past the start. */
export const grantedHoldExpiry = (requestedSeconds: number | undefined, maxHoldMinutes: number, now: Date, startsAt: Date): Date => {
  const seconds = Math.min(requestedSeconds ?? DEFAULT_HOLD_SECONDS, maxHoldMinutes * 60);
  return new Date(Math.min(now.getTime() + seconds * 1000, startsAt.getTime()));
};

/**
 * Until when an on-request operator may answer an order that becomes PENDING at `now`: its
 * window, and never later than an hour before the start. A trip too close to its start for that
 * cannot wait for an operator.
 */
export const confirmationDeadlineOf = (order: Order, now: Date): Date => {
  const deadline = Math.min(
    now.getTime() + order.operatorTerms.confirmationWindowMinutes * MINUTE_MS,
    order.startsAt.getTime() - CONFIRMATION_LEAD_MS,
  );
  if (deadline <= now.getTime()) {
    throw new DomainError('too-late-to-request', {
      message: 'The operator confirms on request and the trip starts within the hour; it can no longer be booked.',
    });
  }
  return new Date(deadline);
};

/** What an order placed (or a hold confirmed) at `now` becomes: CONFIRMED with an instant operator, else PENDING with its deadline. */
export const confirmedOrPending = (order: Order, now: Date): Order =>
  order.operatorTerms.confirmation === 'instant'
    ? { ...order, status: 'CONFIRMED', confirmedAt: now, confirmationDeadline: null }
    : { ...order, status: 'PENDING', confirmationDeadline: confirmationDeadlineOf(order, now) };

/** The traveller's details a confirm may bring. */
export interface HoldDetails {
  readonly contact?: Contact | undefined;
  readonly passengers?: ReadonlyArray<{ readonly name: string }> | undefined;
}

/**
 * Confirms a hold received at `receivedAt`: a hold confirmed before its `holdExpiresAt` always
 * succeeds (its stock and price were held for it); after it → `hold-expired`; any other order →
 * `order-not-on-hold`. `order` is the order as stored, under its lock.
 */
export const confirmHold = (order: Order, receivedAt: Date, details: HoldDetails): Order => {
  if (order.status !== 'ON_HOLD' && order.status !== 'EXPIRED') throw new DomainError('order-not-on-hold');
  // A hold recorded EXPIRED after the request arrived but before it took the lock is still confirmed.
  if (order.holdExpiresAt === null || order.holdExpiresAt.getTime() <= receivedAt.getTime()) {
    throw new DomainError('hold-expired');
  }
  const contact = details.contact ?? order.contact;
  if (contact === null) {
    throw new DomainError('invalid-request', {
      message: 'The hold was placed without a contact; send it with the confirm.',
      details: { errors: [{ path: 'contact', message: 'is required' }] },
    });
  }
  const passengers = details.passengers ?? order.passengers;
  const expected = order.details.passengers;
  if (passengers.length > 0 && passengers.length !== expected) throw passengersMismatch(expected);
  return confirmedOrPending({ ...order, contact, passengers: passengers.map((p) => ({ name: p.name })) }, receivedAt);
};

/** The refusal of a passenger list that is neither empty nor the quote's count. */
export const passengersMismatch = (expected: number): DomainError =>
  new DomainError('invalid-request', {
    message: `The quote is for ${expected} passengers; list all of them or none.`,
    details: { errors: [{ path: 'passengers', message: `must list ${expected} passengers` }] },
  });

/** Releases a hold; a released order is answered unchanged (null: nothing to write); anything else → `order-not-on-hold`. */
export const releaseHold = (order: Order, reason: ReleaseReason): Order | null => {
  if (order.status === 'RELEASED') return null;
  if (order.status !== 'ON_HOLD') throw new DomainError('order-not-on-hold');
  return { ...order, status: 'RELEASED', releaseReason: reason };
};

const requirePending = (order: Order): void => {
  if (order.status !== 'PENDING') throw new DomainError('order-not-pending');
};

/** The operator confirms a pending order with its own reference. */
export const operatorConfirm = (order: Order, operatorReference: string, at: Date): Order => {
  requirePending(order);
  return { ...order, status: 'CONFIRMED', confirmedAt: at, operatorReference };
};

/** The operator refuses a pending order; its stock and price are released. */
export const operatorReject = (order: Order, reason: RejectionReason): Order => {
  requirePending(order);
  return { ...order, status: 'REJECTED', rejectionReason: reason };
};

/**
 * A hold or a pending order reaching its deadline at `at` (the sandbox's `…/expire`): its deadline
 * brought forward to `at`, then the order as every read shows it from that moment (a hold EXPIRED,
 * a pending order REJECTED `operator-timeout`); anything else → `order-has-no-deadline`.
 */
export const deadlineReached = (order: Order, at: Date): Order => {
  if (order.status === 'ON_HOLD') return orderAt({ ...order, holdExpiresAt: at }, at);
  if (order.status === 'PENDING') return orderAt({ ...order, confirmationDeadline: at }, at);
  throw new DomainError('order-has-no-deadline');
};

/** The operator cancels a confirmed order: a full refund, no fee. */
export const operatorCancel = (order: Order, at: Date): Order => {
  if (order.status === 'CANCELLED') throw new DomainError('order-already-cancelled');
  if (order.status !== 'CONFIRMED') {
    throw new DomainError('order-not-cancellable', {
      message: 'An operator cancels a confirmed order only; a pending one is rejected instead, and a hold is the agent’s to release.',
    });
  }
  return cancelled(order, at, 'operator', order.price.amount);
};

/** The order cancelled at `at` by `by`, refunding `refundAmount` of its price and keeping the rest as the fee. */
export const cancelled = (order: Order, at: Date, by: CancelledBy, refundAmount: number): Order => ({
  ...order,
  status: 'CANCELLED',
  cancelledAt: at,
  cancelledBy: by,
  refund: { amount: refundAmount, currency: order.price.currency },
  fee: { amount: order.price.amount - refundAmount, currency: order.price.currency },
});

/** One change of an order's state: the order before (as it was true at the time) and after. */
export interface OrderChange {
  readonly previousStatus: OrderStatus | null;
  readonly order: Order;
}
