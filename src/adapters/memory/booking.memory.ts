import { orderChanged } from '../../domain/webhooks/events.js';
import type { MemoryOutbox } from './webhooks.memory.js';
import { holdsStockAt, orderAt, type Order } from '../../domain/booking/order.js';
import { releaseHold } from '../../domain/booking/order-transitions.js';
import { seatsSoldOut, vehicleSoldOut, type VehicleClaim } from '../../domain/booking/quote.js';
import type { ApiKeyRecord } from '../../domain/identity/api-key.js';
import type { OrderDecision, OrderQuery, OrderRepo, OrderScope } from '../../domain/booking/order-repo.port.js';
import type { Quote } from '../../domain/booking/quote.js';
import type { QuoteRepo } from '../../domain/booking/quote-repo.port.js';
import type { TripInventory } from '../../domain/booking/trip-inventory.port.js';
import { DomainError } from '../../domain/shared/errors.js';
import { pageAt, pageOf, type Page } from '../../domain/shared/page.js';

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
 * Orders and the stock they hold in process memory, with the decisions PostgreSQL makes: each
 * check-and-write runs without an await in between, so it is atomic on the event loop. Stock is
 * counted from the orders holding it at the moment asked, as the database counts it.
 */
export class MemoryOrderRepo implements OrderRepo, TripInventory {
  private readonly orders = new Map<string, Order>();
  private readonly orderByQuote = new Map<string, string>();
  private readonly orderByIdempotencyKey = new Map<string, string>();

  /**
   * `outbox` records the orders' events with each change, as the database's would; `keys` gives
   * the key that placed an order as it is at the moment of a change (without it, none is known) and
   * tells of leak reports;
   * `fleets` the vehicles of a class an operator has per pickup hour (without it, none).
   */
  constructor(
    private readonly outbox?: MemoryOutbox,
    private readonly keys?: {
      keyNow(keyId: string): ApiKeyRecord | null;
      onLeaked?(listener: (keyIds: readonly string[], at: Date) => void): void;
    },
    private readonly fleets?: { fleetSize(operatorCode: string, vehicleClass: string): number },
  ) {
    // A leak report releases the holds the leaked keys made, in the same step (as in its transaction).
    keys?.onLeaked?.((keyIds, at) => this.releaseHoldsOf(keyIds, at));
  }

  /** The order as stored, read at once (for a decision made in the same turn of the event loop), or null. */
  orderNow(orderId: string): Order | null {
    return this.orders.get(orderId) ?? null;
  }

  async find(scope: OrderScope, orderId: string): Promise<Order | null> {
    const order = this.orders.get(orderId);
    return order !== undefined && inScope(order, scope) ? order : null;
  }

  async place(order: Order): Promise<Order> {
    const idemKey = order.idempotencyKey === null ? null : `${order.agentId}\u0000${order.idempotencyKey}`;
    if (idemKey !== null && this.orderByIdempotencyKey.has(idemKey)) {
      return this.orders.get(this.orderByIdempotencyKey.get(idemKey)!)!;
    }
    if (this.orderByQuote.has(order.quoteId)) {
      throw new DomainError('quote-already-booked');
    }
    const at = order.createdAt;
    const claim = order.seats;
    if (claim !== null) {
      const left = claim.capacity - this.seatsHeld(claim.tripId, at, order.livemode);
      if (left < claim.seats) throw seatsSoldOut(Math.max(0, left));
    }
    if (order.vehicle !== null && this.vehiclesLeftNow(order.vehicle, at, order.livemode) < 1)
      throw vehicleSoldOut(order.vehicle.vehicleClass);
    this.orders.set(order.id, order);
    this.orderByQuote.set(order.quoteId, order.id);
    if (idemKey !== null) this.orderByIdempotencyKey.set(idemKey, order.id);
    this.outbox?.record([orderChanged(order, null, at)]);
    return order;
  }

  async findByIdempotencyKey(agentId: string, idempotencyKey: string): Promise<Order | null> {
    const id = this.orderByIdempotencyKey.get(`${agentId}\u0000${idempotencyKey}`);
    return id === undefined ? null : this.orders.get(id)!;
  }

  async list(scope: OrderScope, query: OrderQuery): Promise<Page<Order>> {
    const after = query.after;
    const matching = [...this.orders.values()]
      .filter((o) => inScope(o, scope) && (query.status === undefined || orderAt(o, query.now).status === query.status))
      .filter((o) => query.agentReference === undefined || o.agentReference === query.agentReference);
    if ('operatorCode' in scope && query.status === 'PENDING') {
      const position = (o: Order): { createdAt: Date; id: string } => ({ createdAt: o.confirmationDeadline ?? o.createdAt, id: o.id });
      const rows = matching
        .filter((o) => after === undefined || soonerFirst(position(o), after) > 0)
        .sort((a, b) => soonerFirst(position(a), position(b)))
        .slice(0, query.limit + 1);
      return pageAt(rows, query.limit, position);
    }
    const rows = matching
      .filter((o) => after === undefined || newerFirst(o, { createdAt: after.createdAt, id: after.id }) > 0)
      .sort(newerFirst)
      .slice(0, query.limit + 1);
    return pageOf(rows, query.limit);
  }

  async change(scope: OrderScope, orderId: string, decide: OrderDecision, at: Date): Promise<{ order: Order; changed: boolean } | null> {
    const stored = this.orders.get(orderId);
    if (stored === undefined || !inScope(stored, scope)) return null;
    const before = orderAt(stored, at);
    // The key read in the same turn of the event loop as the change: no revocation runs between.
    const after = decide(before, this.keys?.keyNow(stored.keyId) ?? null);
    if (after === null) return { order: before, changed: false };
    this.orders.set(orderId, after);
    this.outbox?.record([orderChanged(after, before.status, at)]);
    return { order: after, changed: true };
  }

  private readonly releasedListeners: Array<(orderIds: readonly string[], at: Date) => void> = [];

  /** Hears the orders a leak report releases (their money is given back with them). */
  onHoldsReleased(listener: (orderIds: readonly string[], at: Date) => void): void {
    this.releasedListeners.push(listener);
  }

  /** Releases the orders still on hold at `at` that any of `keyIds` made (a leak report), with their events. */
  releaseHoldsOf(keyIds: readonly string[], at: Date): void {
    const keys = new Set(keyIds);
    const released: string[] = [];
    for (const stored of this.orders.values()) {
      const now = orderAt(stored, at);
      if (!keys.has(stored.keyId) || now.status !== 'ON_HOLD') continue;
      const order = releaseHold(now, 'key-leaked')!;
      this.orders.set(stored.id, order);
      this.outbox?.record([orderChanged(order, 'ON_HOLD', at)]);
      released.push(order.id);
    }
    for (const listener of this.releasedListeners) listener(released, at);
  }

  async recordLapses(at: Date, limit: number): Promise<number> {
    let recorded = 0;
    for (const stored of this.orders.values()) {
      if (recorded >= limit) break;
      const now = orderAt(stored, at);
      if (now.status === stored.status) continue;
      this.orders.set(stored.id, now);
      this.outbox?.record([orderChanged(now, stored.status, stored.holdExpiresAt ?? stored.confirmationDeadline ?? at)]);
      recorded += 1;
    }
    return recorded;
  }

  async vehiclesLeft(slot: VehicleClaim, at: Date, livemode: boolean): Promise<number> {
    return this.vehiclesLeftNow(slot, at, livemode);
  }

  /** The fleet less the orders of the mode holding stock in the slot at `at`, counted in one turn of the event loop. */
  private vehiclesLeftNow(slot: VehicleClaim, at: Date, livemode: boolean): number {
    let held = 0;
    for (const o of this.orders.values()) {
      const v = o.vehicle;
      if (
        v !== null &&
        o.livemode === livemode &&
        holdsStockAt(o, at) &&
        v.operatorCode === slot.operatorCode &&
        v.vehicleClass === slot.vehicleClass &&
        v.pickupHour.getTime() === slot.pickupHour.getTime()
      ) {
        held += 1;
      }
    }
    return Math.max(0, (this.fleets?.fleetSize(slot.operatorCode, slot.vehicleClass) ?? 0) - held);
  }

  private seatsHeld(tripId: string, at: Date, livemode: boolean): number {
    let held = 0;
    for (const o of this.orders.values()) {
      if (o.seats !== null && o.seats.tripId === tripId && o.livemode === livemode && holdsStockAt(o, at)) held += o.seats.seats;
    }
    return held;
  }

  async seatsLeft(
    trips: ReadonlyArray<{ readonly tripId: string; readonly capacity: number }>,
    at: Date,
    livemode: boolean,
  ): Promise<Map<string, number>> {
    return new Map(trips.map((t) => [t.tripId, Math.max(0, t.capacity - this.seatsHeld(t.tripId, at, livemode))]));
  }
}

const inScope = (order: Order, scope: OrderScope): boolean =>
  'agentId' in scope ? order.agentId === scope.agentId : order.operatorCode === scope.operatorCode && order.livemode === scope.livemode;

/** Soonest first: the position's time ascending, then id ascending in byte order. */
const soonerFirst = (a: { createdAt: Date; id: string }, b: { createdAt: Date; id: string }): number =>
  a.createdAt.getTime() - b.createdAt.getTime() || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

/** Newest first: createdAt descending, then id descending in byte order (as PostgreSQL's "C" collation). */
const newerFirst = (a: { createdAt: Date; id: string }, b: { createdAt: Date; id: string }): number =>
  b.createdAt.getTime() - a.createdAt.getTime() || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0);
