import type { Product } from '../../domain/identity/agent.js';
import {
  STOCK_HOLDING_STATUSES,
  type CancelledBy,
  type Order,
  type OrderStatus,
  type RejectionReason,
  type ReleaseReason,
} from '../../domain/booking/order.js';
import type { BusDetails, Quote, SeatClaim, TransferDetails, VehicleClaim } from '../../domain/booking/quote.js';
import { operatorCodeOf, type ConfirmationMode, type OperatorRef } from '../../domain/catalogue/operator.js';
import type { Money } from '../../domain/shared/money.js';

/** How quotes and orders are stored, and back. */
export interface QuoteRow {
  id: string;
  livemode: boolean;
  agent_id: string;
  channel_code: string;
  key_id: string;
  product: Product;
  amount: number | string;
  currency: string;
  base_fare_amount?: number | string | null;
  details: TransferDetails | BusDetails;
  seats: StoredSeats | null;
  vehicle: StoredVehicle | null;
  /** Null only on quotes that had expired when operators were introduced. */
  operator: OperatorRef | null;
  confirmation: ConfirmationMode | null;
  starts_at: Date;
  expires_at: Date;
  created_at: Date;
}

interface StoredVehicle {
  operatorCode: string;
  vehicleClass: string;
  pickupHour: string;
}

interface StoredSeats {
  tripId: string;
  scheduleId: string;
  departsAt: string;
  capacity: number;
  seats: number;
}

export interface OrderRow {
  id: string;
  livemode: boolean;
  agent_id: string;
  channel_code: string;
  key_id: string;
  quote_id: string;
  product: Product;
  status: OrderStatus;
  amount: number | string;
  currency: string;
  contact: Order['contact'];
  passengers: Array<{ name: string }>;
  agent_reference: string | null;
  idempotency_key: string | null;
  details: TransferDetails | BusDetails;
  trip_id: string | null;
  seats: StoredSeats | null;
  operator_code: string | null;
  vehicle_class: string | null;
  pickup_hour: Date | null;
  starts_at: Date;
  created_at: Date;
  cancelled_at: Date | null;
  free_cancellation_hours: number;
  late_cancellation_fee_bps: number;
  base_fare_amount?: number | string | null;
  refund_amount: number | string | null;
  fee_amount: number | string | null;
  hold_expires_at: Date | null;
  confirmation_deadline: Date | null;
  confirmed_at: Date | null;
  operator_reference: string | null;
  rejection_reason: RejectionReason | null;
  release_reason: ReleaseReason | null;
  cancelled_by: CancelledBy | null;
  confirmation: ConfirmationMode;
  confirmation_window_minutes: number;
}

const storedSeats = (s: SeatClaim | null): string | null =>
  s === null
    ? null
    : JSON.stringify({
        tripId: s.tripId,
        scheduleId: s.scheduleId,
        departsAt: s.departsAt.toISOString(),
        capacity: s.capacity,
        seats: s.seats,
      });

const seatsOf = (s: StoredSeats | null): SeatClaim | null =>
  s === null
    ? null
    : { tripId: s.tripId, scheduleId: s.scheduleId, departsAt: new Date(s.departsAt), capacity: s.capacity, seats: s.seats };

const storedVehicle = (v: VehicleClaim | null): string | null =>
  v === null
    ? null
    : JSON.stringify({ operatorCode: v.operatorCode, vehicleClass: v.vehicleClass, pickupHour: v.pickupHour.toISOString() });

/**
 * The operator of a quote stored before operators existed (and expired then): named after the
 * bus operator it showed, or the demo transfer operator every fare was given.
 */
const legacyOperator = (r: QuoteRow): OperatorRef =>
  r.product === 'express-bus'
    ? { code: operatorCodeOf((r.details as BusDetails).operator), name: (r.details as BusDetails).operator }
    : { code: 'SIAM-AIRPORT-TRANSFERS', name: 'Siam Airport Transfers' };

export const quoteToRow = (q: Quote): Record<string, unknown> => ({
  id: q.id,
  agent_id: q.agentId,
  channel_code: q.channelCode,
  key_id: q.keyId,
  product: q.product,
  amount: q.price.amount,
  currency: q.price.currency,
  base_fare_amount: q.baseFare?.amount ?? null,
  details: JSON.stringify(q.details),
  seats: storedSeats(q.seats),
  vehicle: storedVehicle(q.vehicle),
  operator: JSON.stringify({ code: q.operator.code, name: q.operator.name }),
  confirmation: q.confirmation,
  starts_at: q.startsAt,
  expires_at: q.expiresAt,
  created_at: q.createdAt,
  livemode: q.livemode,
});

export const quoteOf = (r: QuoteRow): Quote => ({
  id: r.id,
  agentId: r.agent_id,
  channelCode: r.channel_code,
  keyId: r.key_id,
  product: r.product,
  ...pricesOf(r),
  startsAt: new Date(r.starts_at),
  expiresAt: new Date(r.expires_at),
  createdAt: new Date(r.created_at),
  details: r.details,
  seats: seatsOf(r.seats),
  vehicle:
    r.vehicle === null
      ? null
      : { operatorCode: r.vehicle.operatorCode, vehicleClass: r.vehicle.vehicleClass, pickupHour: new Date(r.vehicle.pickupHour) },
  operator: r.operator ?? legacyOperator(r),
  confirmation: r.confirmation ?? 'instant',
  livemode: r.livemode,
});

/** The columns a change of an order may write: everything but the order's identity and what it booked. */
export const CHANGEABLE_ORDER_COLUMNS = [
  'status',
  'contact',
  'passengers',
  'hold_expires_at',
  'confirmation_deadline',
  'confirmed_at',
  'operator_reference',
  'rejection_reason',
  'release_reason',
  'cancelled_at',
  'cancelled_by',
  'refund_amount',
  'fee_amount',
] as const;

/** Every column of an order, in the order the prepared insert passes them (`orderToRow` writes exactly these). */
export const ORDER_COLUMNS = [
  'id',
  'agent_id',
  'channel_code',
  'key_id',
  'quote_id',
  'product',
  'amount',
  'currency',
  'agent_reference',
  'idempotency_key',
  'details',
  'trip_id',
  'seats',
  'operator_code',
  'vehicle_class',
  'pickup_hour',
  'starts_at',
  'created_at',
  'free_cancellation_hours',
  'late_cancellation_fee_bps',
  'livemode',
  'base_fare_amount',
  'confirmation',
  'confirmation_window_minutes',
  ...CHANGEABLE_ORDER_COLUMNS,
] as const;

export const orderToRow = (o: Order): Record<(typeof ORDER_COLUMNS)[number], unknown> => ({
  id: o.id,
  agent_id: o.agentId,
  channel_code: o.channelCode,
  key_id: o.keyId,
  quote_id: o.quoteId,
  product: o.product,
  status: o.status,
  amount: o.price.amount,
  currency: o.price.currency,
  contact: o.contact === null ? null : JSON.stringify(o.contact),
  passengers: JSON.stringify(o.passengers),
  agent_reference: o.agentReference,
  idempotency_key: o.idempotencyKey,
  details: JSON.stringify(o.details),
  trip_id: o.seats?.tripId ?? null,
  seats: storedSeats(o.seats),
  operator_code: o.operatorCode,
  vehicle_class: o.vehicle?.vehicleClass ?? null,
  pickup_hour: o.vehicle?.pickupHour ?? null,
  starts_at: o.startsAt,
  created_at: o.createdAt,
  cancelled_at: o.cancelledAt,
  free_cancellation_hours: o.terms.freeCancellationHours,
  late_cancellation_fee_bps: o.terms.lateCancellationFeeBps,
  refund_amount: o.refund?.amount ?? null,
  fee_amount: o.fee?.amount ?? null,
  livemode: o.livemode,
  base_fare_amount: o.baseFare?.amount ?? null,
  hold_expires_at: o.holdExpiresAt,
  confirmation_deadline: o.confirmationDeadline,
  confirmed_at: o.confirmedAt,
  operator_reference: o.operatorReference,
  rejection_reason: o.rejectionReason,
  release_reason: o.releaseReason,
  cancelled_by: o.cancelledBy,
  confirmation: o.operatorTerms.confirmation,
  confirmation_window_minutes: o.operatorTerms.confirmationWindowMinutes,
});

export const orderOf = (r: OrderRow): Order => ({
  id: r.id,
  agentId: r.agent_id,
  channelCode: r.channel_code,
  keyId: r.key_id,
  quoteId: r.quote_id,
  product: r.product,
  status: r.status,
  ...pricesOf(r),
  contact: r.contact,
  passengers: r.passengers,
  agentReference: r.agent_reference,
  idempotencyKey: r.idempotency_key,
  details: r.details,
  seats: seatsOf(r.seats),
  vehicle:
    r.vehicle_class === null || r.pickup_hour === null || r.operator_code === null
      ? null
      : { operatorCode: r.operator_code, vehicleClass: r.vehicle_class, pickupHour: new Date(r.pickup_hour) },
  operatorCode: r.operator_code,
  startsAt: new Date(r.starts_at),
  createdAt: new Date(r.created_at),
  cancelledAt: r.cancelled_at === null ? null : new Date(r.cancelled_at),
  terms: { freeCancellationHours: r.free_cancellation_hours, lateCancellationFeeBps: r.late_cancellation_fee_bps },
  refund: r.refund_amount === null ? null : { amount: Number(r.refund_amount), currency: r.currency.trim() },
  fee: r.fee_amount === null ? null : { amount: Number(r.fee_amount), currency: r.currency.trim() },
  livemode: r.livemode,
  holdExpiresAt: dateOrNull(r.hold_expires_at),
  confirmationDeadline: dateOrNull(r.confirmation_deadline),
  confirmedAt: dateOrNull(r.confirmed_at),
  operatorReference: r.operator_reference,
  rejectionReason: r.rejection_reason,
  releaseReason: r.release_reason,
  cancelledBy: r.cancelled_by,
  operatorTerms: { confirmation: r.confirmation, confirmationWindowMinutes: r.confirmation_window_minutes },
});

/**
 * The price a quote or an order row keeps, and its base fare as the field it is on the quote or
 * order (absent when not kept), both in the row's currency.
 */
const pricesOf = (r: Pick<QuoteRow, 'amount' | 'base_fare_amount' | 'currency'>): { price: Money; baseFare?: Money } => {
  const currency = r.currency.trim();
  const price = { amount: Number(r.amount), currency };
  return r.base_fare_amount === null || r.base_fare_amount === undefined
    ? { price }
    : { price, baseFare: { amount: Number(r.base_fare_amount), currency } };
};

const dateOrNull = (d: Date | null): Date | null => (d === null ? null : new Date(d));

/**
 * The orders that hold their stock at the moment `at` (a placeholder, `$4` or `?`): the
 * domain's `STOCK_HOLDING_STATUSES`, a hold only before its expiry and a pending order only before
 * its deadline. The one place this predicate is written in SQL.
 */
export const holdsStockAt = (at: string): string => {
  const held: string[] = [];
  for (const status of STOCK_HOLDING_STATUSES) {
    if (status === 'ON_HOLD') held.push(`(status = 'ON_HOLD' AND hold_expires_at > ${at})`);
    else if (status === 'PENDING') held.push(`(status = 'PENDING' AND confirmation_deadline > ${at})`);
    else held.push(`status = '${status}'`);
  }
  return `(${held.join(' OR ')})`;
};

/**
 * The fleet of the class and the orders of mode `$5` holding one of its vehicles in the hour at `$4`:
 * what a quote reads as left, and what a booking counts under the hour's lock (`pbw_order_place`).
 *
 * This count and `SEATS_HELD` are sent unprepared (EXECUTEd in the function), so PostgreSQL plans each one for its values
 * and the table as it is. Prepared, a connection keeps the plan it chose while `orders` was
 * nearly empty: a scan of all the operator's orders (`orders_operator_newest`), which made each
 * booking read every earlier order of its operator (1,100 rows an order in a ten-second bench)
 * instead of the few of its hour.
 */
export const COUNT_HOUR = `SELECT
    (SELECT vehicles FROM operator_fleets WHERE operator_code = $1 AND vehicle_class = $2) AS fleet,
    (SELECT count(*) FROM orders WHERE operator_code = $1 AND vehicle_class = $2 AND pickup_hour = $3
       AND livemode = $5 AND ${holdsStockAt('$4')}) AS held`;

/** The seats the orders of mode `$3` hold on each trip of `$1` at `$2`, read and counted as `COUNT_HOUR` is. */
export const SEATS_HELD = `SELECT trip_id, coalesce(sum((seats->>'seats')::int), 0) AS held FROM orders
  WHERE trip_id = ANY($1::text[]) AND livemode = $3 AND ${holdsStockAt('$2')} GROUP BY trip_id`;
