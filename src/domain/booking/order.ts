import type { Product } from '../identity/agent.js';
import type { ApiKeyRecord } from '../identity/api-key.js';
import { DomainError } from '../shared/errors.js';
import type { Money } from '../shared/money.js';
import { encodeCursor, type Page } from '../shared/page.js';
import type { BusDetails, SeatClaim, TransferDetails } from './quote.js';

export type OrderStatus = 'CONFIRMED' | 'CANCELLED';
export const ORDER_STATUSES: readonly OrderStatus[] = ['CONFIRMED', 'CANCELLED'];

/** The person the operator contacts about the booking. */
export interface Contact {
  readonly name: string;
  readonly email: string;
  readonly phone: string | null;
}

/** A booked quote. */
export interface Order {
  readonly id: string;
  readonly agentId: string;
  /** The channel and price are the quote's, fixed when it was booked. */
  readonly channelCode: string;
  /** The API key that placed the order; a key later revoked as leaked freezes the order. */
  readonly keyId: string;
  readonly quoteId: string;
  readonly product: Product;
  readonly status: OrderStatus;
  readonly price: Money;
  readonly contact: Contact;
  readonly passengers: ReadonlyArray<{ readonly name: string }>;
  readonly agentReference: string | null;
  /** The Idempotency-Key the order was placed with, if any (unique per agent). */
  readonly idempotencyKey: string | null;
  readonly details: TransferDetails | BusDetails;
  /** The seats held on a bus trip; given back on cancel. Null for transfers. */
  readonly seats: SeatClaim | null;
  readonly startsAt: Date;
  readonly createdAt: Date;
  readonly cancelledAt: Date | null;
}

/**
 * Whether an order may be cancelled now. The rules, in order: an order is cancelled once; an
 * order placed with a key that was later revoked as leaked is frozen whoever asks (a thief must
 * not be able to undo, nor the owner be tricked into undoing, what was done with the key; keys
 * revoked for rotation or by an operator do not freeze); and nothing is cancelled once the
 * pickup or departure has passed.
 */
export const checkCancellable = (order: Order, bookingKey: ApiKeyRecord | null, now: Date): void => {
  if (order.status === 'CANCELLED') {
    throw new DomainError('order-already-cancelled', 'conflict', 'The order is already cancelled.');
  }
  if (bookingKey !== null && bookingKey.status === 'REVOKED' && bookingKey.revokedReason === 'leaked') {
    throw new DomainError('booked-with-leaked-key', 'conflict', 'The order was placed with an API key that was revoked as leaked; it cannot be cancelled through the API. Contact support.');
  }
  if (now.getTime() >= order.startsAt.getTime()) {
    throw new DomainError('cancellation-window-closed', 'conflict', 'The pickup or departure has passed; the order can no longer be cancelled.');
  }
};

/** Turns up to `limit + 1` orders (newest first) into a page with the cursor of its last item. */
export const pageOfOrders = (rows: readonly Order[], limit: number): Page<Order> => {
  const data = rows.slice(0, limit);
  const last = data[data.length - 1];
  return {
    data,
    nextCursor: rows.length > limit && last !== undefined ? encodeCursor({ createdAt: last.createdAt, id: last.id }) : null,
  };
};
