import { COUNT_HOUR, ORDER_COLUMNS, SEATS_HELD } from '../../booking-rows.js';
import type { SqlFunction } from './sql-function.js';

/** The columns of an order stored as jsonb: the record carries each as its JSON text. */
const JSONB_COLUMNS: ReadonlySet<string> = new Set(['contact', 'passengers', 'details', 'seats']);

/** SQLSTATE of a booking the stock cannot hold (`sold-out`): DETAIL is what is left (seats of the trip, or 0 vehicles). */
export const SOLD_OUT = 'PB040';

/**
 * A new order with its events and the stock it takes, in one call: `p` is `{order, events, trip}`,
 * `order` the row by column name (`orderToRow`: every column of `ORDER_COLUMNS`, the jsonb ones
 * as their JSON text), `events` its events for the outbox, `trip` (`{schedule_id, departs_at,
 * capacity}`) the trip its seats are on, or null.
 *
 * The order goes in first: a second booking of the quote waits on the unique index and inserts
 * nothing once the first commits (the answer is then null, and nothing is written). Its events go
 * in with it. Then the lock of its stock, the pickup hour's row or the trip's, and only under it
 * the count of the orders holding that stock at the order's `created_at`: a statement of its own,
 * so under READ COMMITTED it sees every order the turns before it committed. Over the fleet or
 * the trip's capacity, PB040 (`SOLD_OUT`) undoes the call. The counts are the ones a quote reads
 * (`COUNT_HOUR`, `SEATS_HELD`), EXECUTEd so that each is planned for its values: a plan kept from
 * when `orders` was nearly empty scans all of an operator's orders instead of the few of one hour.
 */
export const orderPlace: SqlFunction = {
  signature: 'pbw_order_place(jsonb)',
  parameters: 'p jsonb',
  returns: 'text',
  language: 'plpgsql',
  body: `
    DECLARE
      o jsonb := p->'order';
      r orders;
      v_id text;
      v_trip text;
      fleet integer;
      held bigint;
      v_capacity integer := (p->'trip'->>'capacity')::integer;
      v_seats integer := ((o->>'seats')::jsonb->>'seats')::integer;
    BEGIN
      r := jsonb_populate_record(NULL::orders, o);
      INSERT INTO orders (${ORDER_COLUMNS.join(', ')})
        VALUES (${ORDER_COLUMNS.map((c) => (JSONB_COLUMNS.has(c) ? `(o->>'${c}')::jsonb` : `r.${c}`)).join(', ')})
        ON CONFLICT DO NOTHING RETURNING id INTO v_id;
      IF v_id IS NULL THEN
        RETURN NULL;
      END IF;
      PERFORM pbw_webhook_record(p->'events');
      IF r.trip_id IS NOT NULL THEN
        INSERT INTO trip_inventory (trip_id, schedule_id, departs_at, capacity)
          VALUES (r.trip_id, p->'trip'->>'schedule_id', (p->'trip'->>'departs_at')::timestamptz, v_capacity)
          ON CONFLICT (trip_id) DO UPDATE SET trip_id = EXCLUDED.trip_id;
        EXECUTE $count$${SEATS_HELD}$count$ INTO v_trip, held USING ARRAY[r.trip_id], r.created_at, r.livemode;
        IF coalesce(held, 0) > v_capacity THEN
          RAISE EXCEPTION USING ERRCODE = '${SOLD_OUT}', MESSAGE = 'orders: no seats left',
            DETAIL = greatest(0, v_capacity - (held - v_seats))::text;
        END IF;
      ELSIF r.vehicle_class IS NOT NULL THEN
        INSERT INTO transfer_stock_hours (operator_code, vehicle_class, pickup_hour)
          VALUES (r.operator_code, r.vehicle_class, r.pickup_hour)
          ON CONFLICT (operator_code, vehicle_class, pickup_hour) DO UPDATE SET pickup_hour = EXCLUDED.pickup_hour;
        EXECUTE $count$${COUNT_HOUR}$count$ INTO fleet, held
          USING r.operator_code, r.vehicle_class, r.pickup_hour, r.created_at, r.livemode;
        IF held > coalesce(fleet, 0) THEN
          RAISE EXCEPTION USING ERRCODE = '${SOLD_OUT}', MESSAGE = 'orders: no vehicle left', DETAIL = '0';
        END IF;
      END IF;
      RETURN v_id;
    END `,
};
