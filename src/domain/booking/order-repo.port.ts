import type { ApiKeyRecord } from '../identity/api-key.js';
import type { Cursor, Page } from '../shared/page.js';
import type { Order, OrderStatus } from './order.js';

/** What a listing of an agent's or an operator's orders asks for. */
export interface OrderQuery {
  /** The status as true at `now` (a lapsed hold is EXPIRED, a lapsed pending order REJECTED). */
  readonly status?: OrderStatus;
  /** Only the orders with exactly this agent reference. */
  readonly agentReference?: string;
  /** Start strictly after this position. */
  readonly after?: Cursor;
  /** 1..100. */
  readonly limit: number;
  readonly now: Date;
}

/**
 * Whose order a change or a read is about: the agent that placed it, or the operator that runs
 * it, which sees only the orders of its own mode (a live operator never a sandbox order).
 */
export type OrderScope = { readonly agentId: string } | { readonly operatorCode: string; readonly livemode: boolean };

/**
 * Decides a change of a locked order: `order` is as true at the change's moment (`orderAt`),
 * `bookingKey` the key that placed it as read under the order's lock. Throws a DomainError to
 * refuse (nothing changes), returns the order as it becomes, or null to leave it as it is.
 */
export type OrderDecision = (order: Order, bookingKey: ApiKeyRecord | null) => Order | null;

/**
 * Stored orders, and the stock they hold. Run inside a unit of work (`UnitOfWork`, of the
 * application), the writes take part in it. Every rule that protects money or stock is enforced
 * by the storage itself (unique constraints, row locks), so it holds across any number of
 * instances and concurrent requests.
 *
 * Stock is counted from the orders holding it (`STOCK_HOLDING_STATUSES`, a hold only until its
 * `holdExpiresAt` and a pending order until its `confirmationDeadline`), so a lapse frees it the
 * instant it happens, whether or not `recordLapses` has run.
 */
export interface OrderRepo {
  /**
   * Places the order atomically: the quote is booked at most once (another order for the same
   * quote makes this throw DomainError `quote-already-booked`); a bus order's seats (its trip's
   * capacity less the seats of the orders holding stock on it at `order.createdAt`) or a
   * transfer's vehicle (the operator's fleet of the class in the pickup hour less the orders
   * holding one) are counted under a row lock of the trip or the hour, else DomainError
   * `sold-out` and nothing is stored. When the agent already has an order with the same
   * idempotency key, nothing is stored and that existing order is returned instead. A stored
   * order records the event of its status (`orderChanged`, no previous status) in the same
   * transaction.
   */
  place(order: Order): Promise<Order>;
  /** The order as stored, or null when it does not exist or is not in the scope. */
  find(scope: OrderScope, orderId: string): Promise<Order | null>;
  /** Returns the agent's order placed with this idempotency key, or null. */
  findByIdempotencyKey(agentId: string, idempotencyKey: string): Promise<Order | null>;
  /**
   * The scope's orders, one keyset page; `nextCursor` is null on the last page. An agent's
   * listing and an operator's are newest first (createdAt, then id, descending); an operator's
   * listing of PENDING orders is by `confirmationDeadline`, soonest first (then id). Orders of
   * another scope never appear.
   */
  list(scope: OrderScope, query: OrderQuery): Promise<Page<Order>>;
  /**
   * Changes an order: locks it, reads the key that placed it under that lock (FOR SHARE, so a
   * revocation in flight is waited for and seen, and one that starts later waits for this change),
   * runs `decide` on the order as true at `at`, and stores what it returns with the event of the
   * new status (with `previousStatus`), all at once. Of two concurrent changes, the second decides
   * on what the first stored. Returns null when the order does not exist or is not in the scope;
   * else the order as it is after the change (`changed` false when `decide` left it).
   */
  change(scope: OrderScope, orderId: string, decide: OrderDecision, at: Date): Promise<{ order: Order; changed: boolean } | null>;
  /**
   * Records, for at most `limit` orders whose hold or confirmation deadline passed by `at`, the
   * transition every read already shows (EXPIRED; REJECTED with `operator-timeout`) with its event,
   * skipping orders another instance is recording; each transition is recorded exactly once.
   * Returns how many it recorded.
   */
  recordLapses(at: Date, limit: number): Promise<number>;
}
