import type { ApiKeyRecord } from '../identity/api-key.js';
import { isLeaked } from '../identity/api-key.js';
import { DomainError, type Reason } from '../shared/errors.js';
import { money, roundHalfAwayFromZero, type Money } from '../shared/money.js';
import type { OrderStatus } from './order.js';

/** A channel's cancellation terms, fixed on an order when it is booked. */
export interface CancellationTerms {
  /** Free of charge until this many hours before the pickup or departure (0..8760). */
  readonly freeCancellationHours: number;
  /** After that, the fee in basis points of the price (0..10000). */
  readonly lateCancellationFeeBps: number;
}

/** What cancelling an order would do at a given moment (the preview shows it; the cancel applies it). */
export interface CancellationDecision {
  readonly cancellable: boolean;
  /** The reason a cancel would be refused with, or null when it would succeed. */
  readonly reason: CancellationRefusal | null;
  /** What the agent gets back and what it is charged; null when the order cannot be cancelled. */
  readonly refund: Money | null;
  readonly fee: Money | null;
  /** The last moment a cancel is free of charge. */
  readonly freeUntil: Date;
}

export type CancellationRefusal = Extract<
  Reason,
  'order-already-cancelled' | 'order-not-cancellable' | 'booked-with-leaked-key' | 'cancellation-window-closed'
>;

/** What the decision needs of an order. */
export interface CancellableOrder {
  /** As true at the moment of the decision (`orderAt`). */
  readonly status: OrderStatus;
  readonly price: Money;
  readonly startsAt: Date;
  readonly terms: CancellationTerms;
}

const HOUR_MS = 3_600_000;
const BP = 10_000n;

/** The last moment an order can be cancelled free of charge: `freeCancellationHours` before it starts. */
const freeUntilOf = (order: CancellableOrder): Date => new Date(order.startsAt.getTime() - order.terms.freeCancellationHours * HOUR_MS);

/**
 * The one rule of cancellation, used by both the preview and the cancel so they cannot disagree.
 * In order: an order is cancelled once; only a CONFIRMED or PENDING order can be cancelled (a hold
 * is released instead; an expired, released or rejected order holds nothing); an order placed with a key later revoked as leaked is
 * frozen whoever asks (a thief must not undo, nor the owner be tricked into undoing, what was
 * done with the key; keys revoked for rotation or by an operator do not freeze); nothing is
 * cancelled once the pickup or departure has passed (at the start itself it is too late). Up to
 * and including `freeUntil` the cancel is free; after it the fee is `lateCancellationFeeBps` of
 * the price, computed exactly in integers and rounded once to the minor unit, half away from
 * zero, as prices are; the refund is the price less the fee, so the two always add up. A PENDING
 * order, which its operator has not accepted, is refunded in full at any time.
 */
export const decideCancellation = (order: CancellableOrder, bookingKey: ApiKeyRecord | null, now: Date): CancellationDecision => {
  const freeUntil = freeUntilOf(order);
  const refuse = (reason: CancellationRefusal): CancellationDecision => ({
    cancellable: false,
    reason,
    refund: null,
    fee: null,
    freeUntil,
  });
  if (order.status === 'CANCELLED') return refuse('order-already-cancelled');
  if (order.status !== 'CONFIRMED' && order.status !== 'PENDING') return refuse('order-not-cancellable');
  if (bookingKey !== null && isLeaked(bookingKey)) return refuse('booked-with-leaked-key');
  if (now.getTime() >= order.startsAt.getTime()) return refuse('cancellation-window-closed');
  const { price } = order;
  const feeAmount =
    order.status === 'PENDING' || now.getTime() <= freeUntil.getTime()
      ? 0
      : Number(roundHalfAwayFromZero(BigInt(price.amount) * BigInt(order.terms.lateCancellationFeeBps), BP));
  return {
    cancellable: true,
    reason: null,
    refund: money(price.amount - feeAmount, price.currency),
    fee: money(feeAmount, price.currency),
    freeUntil,
  };
};

/** The refund and fee of a cancel that the decision allows, or the DomainError it refuses with. */
export const requireCancellable = (decision: CancellationDecision): { refund: Money; fee: Money } => {
  if (!decision.cancellable || decision.refund === null || decision.fee === null) {
    const reason = decision.reason ?? 'cancellation-window-closed';
    throw new DomainError(reason);
  }
  return { refund: decision.refund, fee: decision.fee };
};
