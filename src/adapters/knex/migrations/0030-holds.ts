import type { Knex } from 'knex';

/**
 * Holds, orders waiting for their operator, and stock counted from the orders that hold it
 * (CONTRACT §6.2, §6.3). An order's status is now one of seven; a hold's `hold_expires_at` and a
 * pending order's `confirmation_deadline` are deadlines that every read applies (a lapsed hold
 * is EXPIRED, a lapsed pending order REJECTED, whether or not the background job has recorded it),
 * so a bus's seats, like a transfer's vehicles, are counted from the orders holding them under the
 * trip's row lock instead of kept in a counter that a lapse could not give back at its instant.
 * Existing orders were confirmed by instant operators.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('orders', (t) => {
    t.timestamp('hold_expires_at', { useTz: true }).nullable();
    t.timestamp('confirmation_deadline', { useTz: true }).nullable();
    t.timestamp('confirmed_at', { useTz: true }).nullable();
    t.text('operator_reference').nullable();
    t.text('rejection_reason').nullable();
    t.text('release_reason').nullable();
    t.text('cancelled_by').nullable();
    t.text('confirmation').notNullable().defaultTo('instant');
    t.integer('confirmation_window_minutes').notNullable().defaultTo(120);
  });
  await knex.raw(`UPDATE orders SET confirmed_at = created_at`);
  await knex.raw(`UPDATE orders SET cancelled_by = 'agent' WHERE status = 'CANCELLED'`);
  await knex.raw('ALTER TABLE orders ALTER COLUMN contact DROP NOT NULL');
  await knex.raw('ALTER TABLE orders DROP CONSTRAINT IF EXISTS orders_status_check');
  await knex.raw('ALTER TABLE orders DROP CONSTRAINT IF EXISTS orders_cancellation_consistent');
  await knex.raw(`ALTER TABLE orders ADD CONSTRAINT orders_status_check
    CHECK (status IN ('ON_HOLD', 'PENDING', 'CONFIRMED', 'REJECTED', 'EXPIRED', 'RELEASED', 'CANCELLED'))`);
  await knex.raw(`ALTER TABLE orders ADD CONSTRAINT orders_state_consistent CHECK (
    (status = 'CANCELLED') = (cancelled_at IS NOT NULL AND cancelled_by IS NOT NULL)
    AND (status <> 'ON_HOLD' OR hold_expires_at IS NOT NULL)
    AND (status <> 'PENDING' OR confirmation_deadline IS NOT NULL)
    AND (status <> 'REJECTED' OR rejection_reason IS NOT NULL)
    AND (status <> 'RELEASED' OR release_reason IS NOT NULL)
    AND (status IN ('ON_HOLD', 'EXPIRED', 'RELEASED') OR contact IS NOT NULL))`);
  await knex.raw(`ALTER TABLE orders ADD CONSTRAINT orders_confirmation_mode CHECK (confirmation IN ('instant', 'on-request'))`);
  await knex.raw(`ALTER TABLE orders ADD CONSTRAINT orders_operator_reference_length CHECK (length(operator_reference) <= 100)`);

  // The seats an order holds are counted from the orders themselves (see above); the trip's row
  // stays as the lock every booking of the trip takes before it counts.
  await knex.raw('ALTER TABLE trip_inventory DROP CONSTRAINT IF EXISTS trip_inventory_seats_in_range');
  await knex.schema.alterTable('trip_inventory', (t) => t.dropColumn('seats_left'));
  await knex.raw('CREATE INDEX orders_trip_stock ON orders (trip_id) WHERE trip_id IS NOT NULL');

  // The background job's scans, the leak report's release, and the operator's listings.
  await knex.raw(`CREATE INDEX orders_hold_lapse ON orders (hold_expires_at) WHERE status = 'ON_HOLD'`);
  await knex.raw(`CREATE INDEX orders_pending_lapse ON orders (confirmation_deadline) WHERE status = 'PENDING'`);
  await knex.raw(`CREATE INDEX orders_key_on_hold ON orders (key_id) WHERE status = 'ON_HOLD'`);
  await knex.raw('CREATE INDEX orders_operator_newest ON orders (operator_code, created_at DESC, id COLLATE "C" DESC)');
  await knex.raw(
    `CREATE INDEX orders_operator_pending ON orders (operator_code, confirmation_deadline, id COLLATE "C") WHERE status = 'PENDING'`,
  );

  await knex.schema.alterTable('channels', (t) => {
    t.integer('max_hold_minutes').notNullable().defaultTo(30);
  });
  await knex.raw('ALTER TABLE channels ADD CONSTRAINT channels_max_hold_in_range CHECK (max_hold_minutes BETWEEN 1 AND 1440)');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('ALTER TABLE channels DROP CONSTRAINT IF EXISTS channels_max_hold_in_range');
  await knex.schema.alterTable('channels', (t) => t.dropColumn('max_hold_minutes'));
  for (const index of [
    'orders_operator_pending',
    'orders_operator_newest',
    'orders_key_on_hold',
    'orders_pending_lapse',
    'orders_hold_lapse',
    'orders_trip_stock',
  ]) {
    await knex.raw(`DROP INDEX IF EXISTS ${index}`);
  }
  await knex.schema.alterTable('trip_inventory', (t) => t.integer('seats_left').nullable());
  await knex.raw(`UPDATE trip_inventory t SET seats_left = t.capacity - coalesce((SELECT sum((o.seats->>'seats')::int) FROM orders o
    WHERE o.trip_id = t.trip_id AND o.status IN ('ON_HOLD', 'PENDING', 'CONFIRMED')), 0)`);
  await knex.raw('ALTER TABLE trip_inventory ALTER COLUMN seats_left SET NOT NULL');
  await knex.raw(`DELETE FROM orders WHERE status NOT IN ('CONFIRMED', 'CANCELLED')`);
  for (const c of ['orders_operator_reference_length', 'orders_confirmation_mode', 'orders_state_consistent', 'orders_status_check']) {
    await knex.raw(`ALTER TABLE orders DROP CONSTRAINT IF EXISTS ${c}`);
  }
  await knex.raw(`ALTER TABLE orders ADD CONSTRAINT orders_status_check CHECK (status IN ('CONFIRMED', 'CANCELLED'))`);
  await knex.raw(`ALTER TABLE orders ADD CONSTRAINT orders_cancellation_consistent CHECK (
    (status = 'CONFIRMED' AND cancelled_at IS NULL) OR (status = 'CANCELLED' AND cancelled_at IS NOT NULL))`);
  await knex.raw('ALTER TABLE orders ALTER COLUMN contact SET NOT NULL');
  await knex.schema.alterTable('orders', (t) => {
    for (const c of [
      'confirmation_window_minutes',
      'confirmation',
      'cancelled_by',
      'release_reason',
      'rejection_reason',
      'operator_reference',
      'confirmed_at',
      'confirmation_deadline',
      'hold_expires_at',
    ]) {
      t.dropColumn(c);
    }
  });
}
