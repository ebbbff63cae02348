import type { Knex } from 'knex';
import { STOCK_HOLDING_STATUSES, type Order } from '../../domain/booking/order.js';
import type { VehicleClaim } from '../../domain/booking/quote.js';
import type { OrderQuery, OrderRepo } from '../../domain/booking/order-repo.port.js';
import { DomainError } from '../../domain/shared/errors.js';
import type { Money } from '../../domain/shared/money.js';
import { pageOf, type Page } from '../../domain/shared/page.js';
import type { ApiKeyRecord } from '../../domain/identity/api-key.js';
import { ORDER_COLUMNS, orderOf, orderToRow, type OrderRow } from './booking-rows.js';
import { KEY_COLUMNS, toKey, type KeyRow } from './identity-rows.js';
import { isUniqueViolation } from './pg-errors.js';
import { rows } from './sql.js';
import { ambientTransaction } from './unit-of-work.knex.js';
import { orderCancelled, orderConfirmed } from '../../domain/webhooks/events.js';
import { eventsJson, recordEvents } from './outbox.knex.js';
import { KnexStore } from './knex-store.js';

/**
 * An order without seats and its `order.confirmed` event, in one statement; no row when a unique
 * key (the quote's, or the agent's idempotency key) already holds another order.
 */
const PLACE = `WITH placed AS (
    INSERT INTO orders (${ORDER_COLUMNS.join(', ')})
    VALUES (${ORDER_COLUMNS.map((_, i) => `$${i + 1}`).join(', ')}) ON CONFLICT DO NOTHING RETURNING id)
  SELECT pbw_webhook_record($${ORDER_COLUMNS.length + 1}::jsonb) FROM placed`;

const alreadyBooked = (): DomainError => new DomainError('quote-already-booked');

/**
 * Locks the pickup hour's stock row (made on first use; the upsert takes the row lock either
 * way), so bookings of one operator, class and hour take turns here and nowhere else.
 */
const LOCK_HOUR = `INSERT INTO transfer_stock_hours (operator_code, vehicle_class, pickup_hour) VALUES ($1, $2, $3)
  ON CONFLICT (operator_code, vehicle_class, pickup_hour) DO UPDATE SET pickup_hour = EXCLUDED.pickup_hour`;

/**
 * The fleet of the class and the orders holding one of its vehicles in the hour, this one
 * included (the statuses are the domain's constants, written into the text). Run after the lock as a statement of its own: under READ COMMITTED it then sees
 * every order the turns before it committed.
 */
export const COUNT_HOUR = `SELECT
    (SELECT vehicles FROM operator_fleets WHERE operator_code = $1 AND vehicle_class = $2) AS fleet,
    (SELECT count(*) FROM orders WHERE operator_code = $1 AND vehicle_class = $2 AND pickup_hour = $3
       AND status IN (${STOCK_HOLDING_STATUSES.map((status) => `'${status}'`).join(', ')})) AS held`;

/** Takes one vehicle of the claim's hour for the order just inserted in `trx`, or `sold-out` (rolling it back). */
async function takeVehicle(trx: Knex.Transaction, claim: VehicleClaim): Promise<void> {
  const args = [claim.operatorCode, claim.vehicleClass, claim.pickupHour];
  await rows(trx, LOCK_HOUR, args, 'orders.lock-hour');
  const [count] = await rows<{ fleet: number | null; held: number | string }>(trx, COUNT_HOUR, args, 'orders.count-hour');
  if (Number(count?.held ?? 0) > Number(count?.fleet ?? 0)) {
    throw new DomainError('sold-out', { message: `No ${claim.vehicleClass} is left for this pickup hour.` });
  }
}

/**
 * Orders on PostgreSQL. Booking at most once rests on the unique `quote_id`, the idempotency key
 * on the unique (agent_id, idempotency_key), seat stock on a conditional decrement in the same
 * transaction as the order, a transfer's vehicle on a count of the hour's orders under that
 * hour's row lock, and cancellation on a row lock. Inside a unit of work (`KnexStore`),
 * the work runs in its transaction and commits with whatever else it writes (an idempotency key's
 * stored response); a failed request, a crash or a lost connection rolls both back.
 */
export class KnexOrderRepo extends KnexStore implements OrderRepo {
  async place(order: Order): Promise<Order> {
    try {
      if (order.seats === null && order.vehicle === null) {
        // No stock to take: one statement inserts the order and records its event, atomic on
        // its own; the unique quote_id still lets only one booking of the quote through. No
        // BEGIN/COMMIT round trips. A prepared statement with explicit columns.
        const row = orderToRow(order);
        const placed = await rows(
          this.knex,
          PLACE,
          [...ORDER_COLUMNS.map((c) => row[c]), eventsJson([orderConfirmed(order)])],
          'orders.place',
        );
        return placed.length > 0 ? order : await this.earlierOrBooked(order);
      }
      const placed = await this.inTransaction(async (trx) => {
        // The order first: a second booking of the quote waits here on the unique index, and
        // inserts nothing once the first commits, before it could touch any seat. A conflict is
        // not an error, so a unit of work it runs in stays usable for the read that follows.
        const inserted = (await trx('orders').insert(orderToRow(order)).onConflict().ignore().returning('id')) as unknown[];
        if (inserted.length === 0) return false;
        // The event is written before the seats are taken: when they are gone it is rolled
        // back with the order, never sent for a booking that did not happen.
        await recordEvents(trx, [orderConfirmed(order)]);
        const seats = order.seats;
        if (seats !== null) {
          await trx('trip_inventory')
            .insert({
              trip_id: seats.tripId,
              schedule_id: seats.scheduleId,
              departs_at: seats.departsAt,
              capacity: seats.capacity,
              seats_left: seats.capacity,
            })
            .onConflict('trip_id')
            .ignore();
          const taken = await trx('trip_inventory')
            .where('trip_id', seats.tripId)
            .andWhere('seats_left', '>=', seats.seats)
            .decrement('seats_left', seats.seats)
            .returning('seats_left');
          if (taken.length === 0) {
            throw new DomainError('sold-out');
          }
        }
        if (order.vehicle !== null) await takeVehicle(trx, order.vehicle);
        return true;
      });
      return placed ? order : await this.earlierOrBooked(order);
    } catch (err) {
      // Another unique key (never expected): the quote is taken all the same.
      if (isUniqueViolation(err)) throw alreadyBooked();
      throw err;
    }
  }

  /**
   * A unique key held another order: the agent's earlier order under the same idempotency key
   * when there is one (it decides when both keys clash), else the quote is booked already. Read
   * after the conflict, in the same transaction: the conflicting order has committed by then.
   */
  private async earlierOrBooked(order: Order): Promise<Order> {
    if (order.idempotencyKey !== null) {
      const earlier = await this.findByIdempotencyKey(order.agentId, order.idempotencyKey);
      if (earlier !== null) return earlier;
    }
    throw alreadyBooked();
  }

  async findForAgent(agentId: string, orderId: string): Promise<Order | null> {
    const row = (await this.knex('orders').where({ id: orderId, agent_id: agentId }).first()) as OrderRow | undefined;
    return row === undefined ? null : orderOf(row);
  }

  async findByIdempotencyKey(agentId: string, idempotencyKey: string): Promise<Order | null> {
    const row = (await this.knex('orders').where({ agent_id: agentId, idempotency_key: idempotencyKey }).first()) as OrderRow | undefined;
    return row === undefined ? null : orderOf(row);
  }

  async listForAgent(agentId: string, query: OrderQuery): Promise<Page<Order>> {
    const q = this.knex('orders').where('agent_id', agentId);
    if (query.status !== undefined) q.andWhere('status', query.status);
    if (query.agentReference !== undefined) q.andWhere('agent_reference', query.agentReference);
    if (query.after !== undefined) {
      q.andWhereRaw('(created_at, id COLLATE "C") < (?, ? COLLATE "C")', [query.after.createdAt, query.after.id]);
    }
    const rows = (await q.orderByRaw('created_at DESC, id COLLATE "C" DESC').limit(query.limit + 1)) as OrderRow[];
    return pageOf(rows.map(orderOf), query.limit);
  }

  async cancel(
    agentId: string,
    orderId: string,
    decide: (order: Order, bookingKey: ApiKeyRecord | null) => { refund: Money; fee: Money },
    at: Date,
  ): Promise<Order | null> {
    return this.inTransaction(async (trx) => {
      const row = (await trx('orders').where({ id: orderId, agent_id: agentId }).forUpdate().first()) as OrderRow | undefined;
      if (row === undefined) return null;
      // The booking key under the order's lock, FOR SHARE: a revocation in flight (it locks the
      // key's row FOR UPDATE) is waited for and its result read; one that starts now waits for
      // this cancel to commit. Read before the lock, a leak report could commit in between.
      const key = (await trx('api_keys')
        .where({ id: row.key_id })
        .forShare()
        .first(...KEY_COLUMNS)) as KeyRow | undefined;
      const { refund, fee } = decide(orderOf(row), key === undefined ? null : toKey(key));
      const [updated] = (await trx('orders')
        .where({ id: orderId, status: 'CONFIRMED' })
        .update({ status: 'CANCELLED', cancelled_at: at, refund_amount: refund.amount, fee_amount: fee.amount })
        .returning('*')) as OrderRow[];
      const order = orderOf(updated!);
      if (order.seats !== null) {
        await trx('trip_inventory').where('trip_id', order.seats.tripId).increment('seats_left', order.seats.seats);
      }
      await recordEvents(trx, [orderCancelled(order)]);
      return order;
    });
  }

  /** `work` in the running unit of work's transaction when there is one, else in a transaction of its own. */
  private inTransaction<T>(work: (trx: Knex.Transaction) => Promise<T>): Promise<T> {
    const unit = ambientTransaction();
    return unit === null ? this.rawPool.transaction(work) : work(unit);
  }
}
