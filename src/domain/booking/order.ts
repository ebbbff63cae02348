import type { Product } from '../identity/agent.js';
import type { ApiKeyRecord } from '../identity/api-key.js';
import { decideCancellation, requireCancellable, type CancellationTerms } from './cancellation.js';
import type { Money } from '../shared/money.js';
import type { BusDetails, SeatClaim, TransferDetails, VehicleClaim } from './quote.js';

export type OrderStatus = 'CONFIRMED' | 'CANCELLED';
export const ORDER_STATUSES: readonly OrderStatus[] = ['CONFIRMED', 'CANCELLED'];

/**
 * The statuses of an order that holds its stock (a transfer's vehicle): every store counts the
 * orders in these against the fleet, so a status that holds stock is added here and only here.
 */
export const STOCK_HOLDING_STATUSES: readonly OrderStatus[] = ['CONFIRMED'];

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
  /** The vehicle a transfer takes while the order holds stock (`STOCK_HOLDING_STATUSES`). Null for buses. */
  readonly vehicle: VehicleClaim | null;
  /** The operator of the trip or transfer (null only for orders placed before operators existed and never mapped). */
  readonly operatorCode: string | null;
  readonly startsAt: Date;
  readonly createdAt: Date;
  readonly cancelledAt: Date | null;
  /** The channel's cancellation terms when the order was booked. */
  readonly terms: CancellationTerms;
  /** What a cancel refunded and charged; null until the order is cancelled. */
  readonly refund: Money | null;
  readonly fee: Money | null;
}

/** Throws the DomainError a cancel of `order` would be refused with at `now` (see `decideCancellation`). */
export const checkCancellable = (order: Order, bookingKey: ApiKeyRecord | null, now: Date): void => {
  requireCancellable(decideCancellation(order, bookingKey, now));
};
