import type { Product } from '../identity/agent.js';
import type { ApiKeyRecord } from '../identity/api-key.js';
import { decideCancellation, requireCancellable, type CancellationTerms } from './cancellation.js';
import type { Money } from '../shared/money.js';
import type { ConfirmationMode } from '../catalogue/operator.js';
import type { BusDetails, SeatClaim, TransferDetails, VehicleClaim } from './quote.js';

/**
 * The states of an order (CONTRACT §6.2):
 *
 *     place {hold} → ON_HOLD ─confirm→ CONFIRMED (instant) | PENDING (on-request)
 *                    ON_HOLD ─release→ RELEASED    ON_HOLD ─holdExpiresAt passes→ EXPIRED
 *     place        → CONFIRMED (instant) | PENDING (on-request)
 *     PENDING ─operator confirms→ CONFIRMED    PENDING ─operator rejects | deadline passes→ REJECTED
 *     PENDING | CONFIRMED ─agent cancels→ CANCELLED    CONFIRMED ─operator cancels→ CANCELLED
 */
export const ORDER_STATUSES = ['ON_HOLD', 'PENDING', 'CONFIRMED', 'REJECTED', 'EXPIRED', 'RELEASED', 'CANCELLED'] as const;
export type OrderStatus = (typeof ORDER_STATUSES)[number];

/**
 * The statuses of an order that holds its stock (a bus's seats, a transfer's vehicle) and its
 * price: every store counts the orders in these against the trip's capacity or the fleet, an
 * ON_HOLD order only until `holdExpiresAt` and a PENDING one only until `confirmationDeadline`
 * (`holdsStockAt`). A status that holds stock is added here and only here.
 */
export const STOCK_HOLDING_STATUSES: readonly OrderStatus[] = ['ON_HOLD', 'PENDING', 'CONFIRMED'];

/** Why an operator refuses a pending order (CONTRACT §6.3), or why the service refused it for them. */
export const OPERATOR_REJECTION_REASONS = ['sold-out', 'schedule-changed', 'pickup-not-serviceable', 'operator-declined'] as const;
export type RejectionReason = (typeof OPERATOR_REJECTION_REASONS)[number] | 'operator-timeout';

/** Why a hold was released: by the agent, or by the service when the key that made it was reported leaked. */
export type ReleaseReason = 'agent' | 'key-leaked';

/** Who cancelled an order. */
export type CancelledBy = 'agent' | 'operator';

/** The person the operator contacts about the booking. */
export interface Contact {
  readonly name: string;
  readonly email: string;
  readonly phone: string | null;
}

/** How the operator confirms, fixed on the order when it is placed. */
export interface OperatorTerms {
  readonly confirmation: ConfirmationMode;
  /** An on-request operator's time to answer, in minutes. */
  readonly confirmationWindowMinutes: number;
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
  /** The status as stored; what is true at a given moment is `orderAt(order, now).status`. */
  readonly status: OrderStatus;
  readonly price: Money;
  /** What the operator gets of the price: the quote's base fare. Absent on orders placed before it was kept. */
  readonly baseFare?: Money;
  /** The person the operator contacts; null while a hold waits for the traveller's details. */
  readonly contact: Contact | null;
  readonly passengers: ReadonlyArray<{ readonly name: string }>;
  readonly agentReference: string | null;
  /** The Idempotency-Key the order was placed with, if any (unique per agent). */
  readonly idempotencyKey: string | null;
  readonly details: TransferDetails | BusDetails;
  /** The seats a bus order holds while in `STOCK_HOLDING_STATUSES`. Null for transfers. */
  readonly seats: SeatClaim | null;
  /** The vehicle a transfer takes while the order holds stock (`STOCK_HOLDING_STATUSES`). Null for buses. */
  readonly vehicle: VehicleClaim | null;
  /** The operator of the trip or transfer (null only for orders placed before operators existed and never mapped). */
  readonly operatorCode: string | null;
  readonly operatorTerms: OperatorTerms;
  readonly startsAt: Date;
  readonly createdAt: Date;
  /** Until when an ON_HOLD order holds its stock and price. Null for an order never on hold. */
  readonly holdExpiresAt: Date | null;
  /** Until when a PENDING order waits for its operator. Null for an order never pending. */
  readonly confirmationDeadline: Date | null;
  readonly confirmedAt: Date | null;
  /** The operator's own reference, given when it confirms a pending order. */
  readonly operatorReference: string | null;
  readonly rejectionReason: RejectionReason | null;
  readonly releaseReason: ReleaseReason | null;
  readonly cancelledAt: Date | null;
  readonly cancelledBy: CancelledBy | null;
  /** The channel's cancellation terms when the order was booked. */
  readonly terms: CancellationTerms;
  /** What a cancel refunded and charged; null until the order is cancelled. */
  readonly refund: Money | null;
  readonly fee: Money | null;
  /**
   * False for a sandbox agent's order (CONTRACT §6.7): it counts against the sandbox's stock only,
   * moves the sandbox's money only, and only a sandbox operator sees it.
   */
  readonly livemode: boolean;
}

/** Whether `order`, as stored, still holds its stock and price at `now` (see `STOCK_HOLDING_STATUSES`). */
export const holdsStockAt = (order: Order, now: Date): boolean => STOCK_HOLDING_STATUSES.includes(orderAt(order, now).status);

/**
 * The order as it is at `now`: a hold whose `holdExpiresAt` has passed is EXPIRED, a pending
 * order whose `confirmationDeadline` has passed is REJECTED (`operator-timeout`), whether or not
 * storage has recorded the transition yet. Every read and every decision goes through this.
 */
export const orderAt = (order: Order, now: Date): Order => {
  if (order.status === 'ON_HOLD' && order.holdExpiresAt !== null && order.holdExpiresAt.getTime() <= now.getTime()) {
    return { ...order, status: 'EXPIRED' };
  }
  if (order.status === 'PENDING' && order.confirmationDeadline !== null && order.confirmationDeadline.getTime() <= now.getTime()) {
    return { ...order, status: 'REJECTED', rejectionReason: 'operator-timeout' };
  }
  return order;
};

/** The event type each status is told with (`order.held`, `order.pending`, …). */
export const ORDER_EVENT_OF_STATUS = {
  ON_HOLD: 'order.held',
  PENDING: 'order.pending',
  CONFIRMED: 'order.confirmed',
  REJECTED: 'order.rejected',
  EXPIRED: 'order.expired',
  RELEASED: 'order.released',
  CANCELLED: 'order.cancelled',
} as const satisfies Record<OrderStatus, string>;
export type OrderEventType = (typeof ORDER_EVENT_OF_STATUS)[OrderStatus];
export const ORDER_EVENT_TYPES = [
  'order.held',
  'order.pending',
  'order.confirmed',
  'order.rejected',
  'order.expired',
  'order.released',
  'order.cancelled',
] as const satisfies readonly OrderEventType[];

/** Throws the DomainError a cancel of `order` would be refused with at `now` (see `decideCancellation`). */
export const checkCancellable = (order: Order, bookingKey: ApiKeyRecord | null, now: Date): void => {
  requireCancellable(decideCancellation(orderAt(order, now), bookingKey, now));
};
