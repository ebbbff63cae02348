import { orderAt, type Order, type OrderStatus } from '../../domain/booking/order.js';
import { seatsSoldOut, vehicleSoldOut } from '../../domain/booking/quote.js';
import type { OrderDecision, OrderQuery, OrderRepo, OrderScope } from '../../domain/booking/order-repo.port.js';
import { DomainError } from '../../domain/shared/errors.js';
import { pageAt, pageOf, type Page } from '../../domain/shared/page.js';
import { CHANGEABLE_ORDER_COLUMNS, orderOf, orderToRow, type OrderRow } from './booking-rows.js';
import { KEY_COLUMNS, toKey, type KeyRow } from './identity-rows.js';
import { detailOf, isUniqueViolation, sqlState } from './pg-errors.js';
import { SOLD_OUT } from './schema/functions/order-place.js';
import { jsonParam, rows } from './sql.js';
import { outboxRecords } from '../webhooks/payloads.js';
import { orderChanged } from '../../domain/webhooks/events.js';
import { eventsJson, recordEvents } from './outbox.knex.js';
import { KnexStore } from './knex-store.js';

const alreadyBooked = (): DomainError => new DomainError('quote-already-booked');

/** The refusal of an order its stock cannot hold: the seats left (`pbw_order_place`'s DETAIL), or the vehicle class. */
const soldOut = (order: Order, err: unknown): DomainError =>
  order.seats !== null ? seatsSoldOut(Number(detailOf(err))) : vehicleSoldOut(order.vehicle?.vehicleClass ?? '');

/**
 * An order of the scope under its row lock, with its booking key FOR SHARE (every order has its
 * key: `key_id` references it), the key's columns named `key_…`. A revocation in flight (it locks
 * the key's row FOR UPDATE) is waited for and its result read; one that starts later waits for
 * this change to commit.
 */
const lockForChange = (scope: 'agent' | 'operator'): string =>
  `SELECT o.*, ${KEY_COLUMNS.map((c) => `k.${c} AS key_${c}`).join(', ')}
   FROM orders o JOIN api_keys k ON k.id = o.key_id
   WHERE o.id = $1 AND ${scope === 'agent' ? 'o.agent_id = $2' : 'o.operator_code = $2 AND o.livemode = $3'}
   FOR UPDATE OF o FOR SHARE OF k`;
const LOCK_FOR_CHANGE = { agent: lockForChange('agent'), operator: lockForChange('operator') } as const;

/**
 * The stored statuses that are `status` as true at the moment `at` (a placeholder): a lapsed hold is EXPIRED and a lapsed
 * pending order REJECTED (`orderAt`), whether or not the transition has been recorded.
 */
const statusAt = (status: OrderStatus, at: string): string => {
  switch (status) {
    case 'ON_HOLD':
      return `(status = 'ON_HOLD' AND hold_expires_at > ${at})`;
    case 'PENDING':
      return `(status = 'PENDING' AND confirmation_deadline > ${at})`;
    case 'EXPIRED':
      return `(status = 'EXPIRED' OR (status = 'ON_HOLD' AND hold_expires_at <= ${at}))`;
    case 'REJECTED':
      return `(status = 'REJECTED' OR (status = 'PENDING' AND confirmation_deadline <= ${at}))`;
    default:
      return `status = '${status}'`;
  }
};

const scopeWhere = (scope: OrderScope): Record<string, string | boolean> =>
  'agentId' in scope ? { agent_id: scope.agentId } : { operator_code: scope.operatorCode, livemode: scope.livemode };

/** A change of an order's changeable columns and its event, in one statement. */
const CHANGE = `WITH changed AS (
    UPDATE orders SET ${CHANGEABLE_ORDER_COLUMNS.map((c, i) => `${c} = $${i + 2}`).join(', ')} WHERE id = $1 RETURNING id)
  SELECT pbw_webhook_record($${CHANGEABLE_ORDER_COLUMNS.length + 2}::jsonb) AS queued FROM changed`;

/**
 * Orders on PostgreSQL. Booking at most once rests on the unique `quote_id`, the idempotency key
 * on the unique (agent_id, idempotency_key), stock on a count of the orders holding it under the
 * trip's or the pickup hour's row lock, and every change on the order's row lock. Inside a unit of
 * work (`KnexStore`) the work runs in its transaction and commits with whatever else it writes.
 */
export class KnexOrderRepo extends KnexStore implements OrderRepo {
  async place(order: Order): Promise<Order> {
    const { seats } = order;
    const record = jsonParam({
      order: orderToRow(order),
      events: outboxRecords([orderChanged(order, null, order.createdAt)]),
      trip: seats === null ? null : { schedule_id: seats.scheduleId, departs_at: seats.departsAt, capacity: seats.capacity },
    });
    let placed: Array<{ id: string | null }>;
    try {
      placed = await rows<{ id: string | null }>(this.knex, 'SELECT pbw_order_place($1::jsonb) AS id', [record], 'orders.place');
    } catch (err) {
      if (sqlState(err) === SOLD_OUT) throw soldOut(order, err);
      // Another unique key (never expected): the quote is taken all the same.
      if (isUniqueViolation(err)) throw alreadyBooked();
      throw err;
    }
    return placed[0]?.id === order.id ? order : this.earlierOrBooked(order);
  }

  /**
   * A unique key held another order: the agent's earlier order under the same idempotency key
   * when there is one (it decides when both keys clash), else the quote is booked already.
   */
  private async earlierOrBooked(order: Order): Promise<Order> {
    if (order.idempotencyKey !== null) {
      const earlier = await this.findByIdempotencyKey(order.agentId, order.idempotencyKey);
      if (earlier !== null) return earlier;
    }
    throw alreadyBooked();
  }

  async find(scope: OrderScope, orderId: string): Promise<Order | null> {
    const row = (await this.knex('orders')
      .where({ id: orderId, ...scopeWhere(scope) })
      .first()) as OrderRow | undefined;
    return row === undefined ? null : orderOf(row);
  }

  async findByIdempotencyKey(agentId: string, idempotencyKey: string): Promise<Order | null> {
    // Prepared: every order with an Idempotency-Key asks this first.
    const [row] = await rows<OrderRow>(
      this.knex,
      'SELECT * FROM orders WHERE agent_id = $1 AND idempotency_key = $2',
      [agentId, idempotencyKey],
      'orders.by-idempotency-key',
    );
    return row === undefined ? null : orderOf(row);
  }

  async list(scope: OrderScope, query: OrderQuery): Promise<Page<Order>> {
    const q = this.knex('orders').where(scopeWhere(scope));
    if (query.status !== undefined) {
      const condition = statusAt(query.status, '?');
      q.andWhereRaw(condition, condition.includes('?') ? [query.now] : []);
    }
    if (query.agentReference !== undefined) q.andWhere('agent_reference', query.agentReference);
    const byDeadline = 'operatorCode' in scope && query.status === 'PENDING';
    if (byDeadline) {
      if (query.after !== undefined) {
        q.andWhereRaw('(confirmation_deadline, id COLLATE "C") > (?, ? COLLATE "C")', [query.after.createdAt, query.after.id]);
      }
      const found = (await q.orderByRaw('confirmation_deadline ASC, id COLLATE "C" ASC').limit(query.limit + 1)) as OrderRow[];
      return pageAt(found.map(orderOf), query.limit, (o) => ({ createdAt: o.confirmationDeadline ?? o.createdAt, id: o.id }));
    }
    if (query.after !== undefined) {
      q.andWhereRaw('(created_at, id COLLATE "C") < (?, ? COLLATE "C")', [query.after.createdAt, query.after.id]);
    }
    const found = (await q.orderByRaw('created_at DESC, id COLLATE "C" DESC').limit(query.limit + 1)) as OrderRow[];
    return pageOf(found.map(orderOf), query.limit);
  }

  async change(scope: OrderScope, orderId: string, decide: OrderDecision, at: Date): Promise<{ order: Order; changed: boolean } | null> {
    return this.inTransaction(async (trx) => {
      const [row] =
        'agentId' in scope
          ? await rows<OrderRow & Record<string, unknown>>(trx, LOCK_FOR_CHANGE.agent, [orderId, scope.agentId], 'orders.lock-for-agent')
          : await rows<OrderRow & Record<string, unknown>>(
              trx,
              LOCK_FOR_CHANGE.operator,
              [orderId, scope.operatorCode, scope.livemode],
              'orders.lock-for-operator',
            );
      if (row === undefined) return null;
      const key = Object.fromEntries(KEY_COLUMNS.map((c) => [c, row[`key_${c}`]])) as unknown as KeyRow;
      const before = orderAt(orderOf(row), at);
      const after = decide(before, toKey(key));
      if (after === null) return { order: before, changed: false };
      const stored = orderToRow(after);
      await rows(
        trx,
        CHANGE,
        [orderId, ...CHANGEABLE_ORDER_COLUMNS.map((c) => stored[c]), eventsJson([orderChanged(after, before.status, at)])],
        'orders.change',
      );
      return { order: after, changed: true };
    });
  }

  async recordLapses(at: Date, limit: number): Promise<number> {
    return this.inTransaction(async (trx) => {
      // SKIP LOCKED: an order another instance is recording (or a request is changing) is left
      // to it; the status condition makes each transition happen once.
      const lapsed = (await trx('orders')
        .whereIn(
          'id',
          trx('orders')
            .select('id')
            .where((w) =>
              w
                .where((h) => h.where('status', 'ON_HOLD').andWhere('hold_expires_at', '<=', at))
                .orWhere((p) => p.where('status', 'PENDING').andWhere('confirmation_deadline', '<=', at)),
            )
            .limit(limit)
            .forUpdate()
            .skipLocked(),
        )
        .select('*')) as OrderRow[];
      if (lapsed.length === 0) return 0;
      const changes = lapsed.map((row) => {
        const before = orderOf(row);
        return { before, after: orderAt(before, at) };
      });
      await trx('orders')
        .whereIn(
          'id',
          changes.filter((c) => c.after.status === 'EXPIRED').map((c) => c.before.id),
        )
        .update({ status: 'EXPIRED' });
      await trx('orders')
        .whereIn(
          'id',
          changes.filter((c) => c.after.status === 'REJECTED').map((c) => c.before.id),
        )
        .update({ status: 'REJECTED', rejection_reason: 'operator-timeout' });
      // The event's moment is the lapse itself, which every read has shown since.
      await recordEvents(
        trx,
        changes.map((c) => orderChanged(c.after, c.before.status, c.before.holdExpiresAt ?? c.before.confirmationDeadline ?? at)),
      );
      return changes.length;
    });
  }
}
