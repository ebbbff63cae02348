import type { Money } from '../../domain/shared/money.js';
import { orderCancelled, orderConfirmed } from '../../domain/webhooks/events.js';
import type { MemoryOutbox } from './webhooks.memory.js';
import { STOCK_HOLDING_STATUSES, type Order } from '../../domain/booking/order.js';
import type { VehicleClaim } from '../../domain/booking/quote.js';
import type { ApiKeyRecord } from '../../domain/identity/api-key.js';
import type { OrderQuery, OrderRepo } from '../../domain/booking/order-repo.port.js';
import type { Quote } from '../../domain/booking/quote.js';
import type { QuoteRepo } from '../../domain/booking/quote-repo.port.js';
import type { TripInventory } from '../../domain/booking/trip-inventory.port.js';
import { DomainError } from '../../domain/shared/errors.js';
import { pageOf, type Page } from '../../domain/shared/page.js';

/** Quotes in process memory. */
export class MemoryQuoteRepo implements QuoteRepo {
  private readonly quotes = new Map<string, Quote>();

  async insert(quote: Quote): Promise<void> {
    if (this.quotes.has(quote.id)) throw new Error(`duplicate quote id ${quote.id}`);
    this.quotes.set(quote.id, quote);
  }

  async findForAgent(agentId: string, quoteId: string): Promise<Quote | null> {
    const quote = this.quotes.get(quoteId);
    return quote !== undefined && quote.agentId === agentId ? quote : null;
  }
}

/**
 * Orders and seat inventory in process memory, with the decisions PostgreSQL makes: each
 * check-and-write runs without an await in between, so it is atomic on the event loop.
 */
export class MemoryOrderRepo implements OrderRepo, TripInventory {
  private readonly orders = new Map<string, Order>();
  private readonly orderByQuote = new Map<string, string>();
  private readonly orderByIdempotencyKey = new Map<string, string>();
  private readonly seats = new Map<string, number>();

  /**
   * `outbox` records the orders' events with each change, as the database's would; `keys` gives
   * the key that placed an order as it is at the moment of a cancel (without it, none is known);
   * `fleets` the vehicles of a class an operator has per pickup hour (without it, none).
   */
  constructor(
    private readonly outbox?: MemoryOutbox,
    private readonly keys?: { keyNow(keyId: string): ApiKeyRecord | null },
    private readonly fleets?: { fleetSize(operatorCode: string, vehicleClass: string): number },
  ) {}

  async findForAgent(agentId: string, orderId: string): Promise<Order | null> {
    const order = this.orders.get(orderId);
    return order !== undefined && order.agentId === agentId ? order : null;
  }

  async place(order: Order): Promise<Order> {
    const idemKey = order.idempotencyKey === null ? null : `${order.agentId}\u0000${order.idempotencyKey}`;
    if (idemKey !== null && this.orderByIdempotencyKey.has(idemKey)) {
      return this.orders.get(this.orderByIdempotencyKey.get(idemKey)!)!;
    }
    if (this.orderByQuote.has(order.quoteId)) {
      throw new DomainError('quote-already-booked');
    }
    const claim = order.seats;
    if (claim !== null) {
      const left = this.seats.get(claim.tripId) ?? claim.capacity;
      if (left < claim.seats) throw new DomainError('sold-out');
      this.seats.set(claim.tripId, left - claim.seats);
    }
    if (order.vehicle !== null && this.vehiclesLeftNow(order.vehicle) < 1) {
      if (claim !== null) this.seats.set(claim.tripId, (this.seats.get(claim.tripId) ?? claim.capacity) + claim.seats);
      throw new DomainError('sold-out', { message: `No ${order.vehicle.vehicleClass} is left for this pickup hour.` });
    }
    this.orders.set(order.id, order);
    this.orderByQuote.set(order.quoteId, order.id);
    if (idemKey !== null) this.orderByIdempotencyKey.set(idemKey, order.id);
    this.outbox?.record([orderConfirmed(order)]);
    return order;
  }

  async findByIdempotencyKey(agentId: string, idempotencyKey: string): Promise<Order | null> {
    const id = this.orderByIdempotencyKey.get(`${agentId}\u0000${idempotencyKey}`);
    return id === undefined ? null : this.orders.get(id)!;
  }

  async listForAgent(agentId: string, query: OrderQuery): Promise<Page<Order>> {
    const after = query.after;
    const rows = [...this.orders.values()]
      .filter((o) => o.agentId === agentId && (query.status === undefined || o.status === query.status))
      .filter((o) => query.agentReference === undefined || o.agentReference === query.agentReference)
      .filter((o) => after === undefined || newerFirst(o, { createdAt: after.createdAt, id: after.id }) > 0)
      .sort(newerFirst)
      .slice(0, query.limit + 1);
    return pageOf(rows, query.limit);
  }

  async cancel(
    agentId: string,
    orderId: string,
    decide: (order: Order, bookingKey: ApiKeyRecord | null) => { refund: Money; fee: Money },
    at: Date,
  ): Promise<Order | null> {
    const order = this.orders.get(orderId);
    if (order === undefined || order.agentId !== agentId) return null;
    // The key read in the same turn of the event loop as the change: no revocation runs between.
    const { refund, fee } = decide(order, this.keys?.keyNow(order.keyId) ?? null);
    const cancelled: Order = { ...order, status: 'CANCELLED', cancelledAt: at, refund, fee };
    this.orders.set(orderId, cancelled);
    if (order.seats !== null) {
      this.seats.set(order.seats.tripId, (this.seats.get(order.seats.tripId) ?? order.seats.capacity) + order.seats.seats);
    }
    this.outbox?.record([orderCancelled(cancelled)]);
    return cancelled;
  }

  async vehiclesLeft(slot: VehicleClaim): Promise<number> {
    return this.vehiclesLeftNow(slot);
  }

  /** The fleet less the orders holding stock in the slot, counted in one turn of the event loop. */
  private vehiclesLeftNow(slot: VehicleClaim): number {
    let held = 0;
    for (const o of this.orders.values()) {
      const v = o.vehicle;
      if (
        v !== null &&
        STOCK_HOLDING_STATUSES.includes(o.status) &&
        v.operatorCode === slot.operatorCode &&
        v.vehicleClass === slot.vehicleClass &&
        v.pickupHour.getTime() === slot.pickupHour.getTime()
      ) {
        held += 1;
      }
    }
    return Math.max(0, (this.fleets?.fleetSize(slot.operatorCode, slot.vehicleClass) ?? 0) - held);
  }

  async seatsLeft(trips: ReadonlyArray<{ readonly tripId: string; readonly capacity: number }>): Promise<Map<string, number>> {
    return new Map(trips.map((t) => [t.tripId, this.seats.get(t.tripId) ?? t.capacity]));
  }
}

/** Newest first: createdAt descending, then id descending in byte order (as PostgreSQL's "C" collation). */
const newerFirst = (a: { createdAt: Date; id: string }, b: { createdAt: Date; id: string }): number =>
  b.createdAt.getTime() - a.createdAt.getTime() || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0);
