import type { ApiKeyRecord } from '../identity/api-key.js';
import type { Money } from '../shared/money.js';
import type { Cursor, Page } from '../shared/page.js';
import type { Order, OrderStatus } from './order.js';

/** What a listing of an agent's orders asks for. */
export interface OrderQuery {
  readonly status?: OrderStatus;
  /** Only the orders with exactly this agent reference. */
  readonly agentReference?: string;
  /** Start strictly after this position (newest first). */
  readonly after?: Cursor;
  /** 1..100. */
  readonly limit: number;
}

/**
 * Stored orders, and the seats they hold. Run inside a unit of work (`UnitOfWork`, of the
 * application), the writes take part in it: the order and its seats then commit together with
 * whatever else the unit writes (an idempotency key's stored response), in one commit, and a
 * failed request or a crash undoes both. Every rule that protects money or stock is enforced
 * by the storage itself (unique constraints, conditional updates, row locks), so it holds across
 * any number of instances and concurrent requests.
 */
export interface OrderRepo {
  /**
   * Places the order atomically: the quote is booked at most once (another order for the same
   * quote, committed or in flight, makes this throw DomainError `quote-already-booked`); for a
   * bus order the seats are taken from the trip's inventory (created at the trip's capacity on
   * first use) only if that many are left, else DomainError `sold-out` and nothing is stored;
   * for a transfer order (`vehicle`) one vehicle of the operator's fleet of that class in the
   * pickup hour is taken only if the orders holding stock there (`STOCK_HOLDING_STATUSES`,
   * counted under a lock of that hour's stock, whatever the concurrency) leave one, else
   * DomainError `sold-out` and nothing is stored. A cancelled order no longer holds its vehicle.
   * When the agent already has an order with the same idempotency key, nothing is stored and
   * that existing order is returned instead. A stored order records `order.confirmed`
   * (`orderConfirmed`) in the same transaction; an order not stored records nothing.
   */
  place(order: Order): Promise<Order>;
  /** Returns the agent's order, or null when it does not exist or belongs to another agent. */
  findForAgent(agentId: string, orderId: string): Promise<Order | null>;
  /** Returns the agent's order placed with this idempotency key, or null. */
  findByIdempotencyKey(agentId: string, idempotencyKey: string): Promise<Order | null>;
  /**
   * The agent's orders, newest first (createdAt, then id, descending), filtered by status, one
   * keyset page; `nextCursor` is null on the last page. Other agents' orders never appear.
   */
  listForAgent(agentId: string, query: OrderQuery): Promise<Page<Order>>;
  /**
   * Cancels the agent's order: locks it, then reads the key that placed it (`order.keyId`; null
   * if there is none), runs `decide` on both (which throws to refuse; nothing changes then, or
   * returns the refund and fee), marks the order CANCELLED at `at` with that refund and fee and
   * gives a bus order's seats back to the trip, all at once. Of two concurrent cancels exactly
   * one succeeds; the other's `decide` sees the order already cancelled. The key is read under
   * the order's lock and holds off its own revocation until the cancel ends: a revocation that
   * committed before the read is seen, one in flight is waited for and then seen, and one that
   * starts later waits for the cancel to commit. So no cancel commits after a leak report that
   * it did not see. Returns null when the order does not exist or belongs to another agent. The
   * cancellation records `order.cancelled` (`orderCancelled`) in the same transaction.
   */
  cancel(
    agentId: string,
    orderId: string,
    decide: (order: Order, bookingKey: ApiKeyRecord | null) => { refund: Money; fee: Money },
    at: Date,
  ): Promise<Order | null>;
}
