import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('quotes', (t) => {
    t.text('id').primary();
    t.text('agent_id').notNullable().references('id').inTable('agents');
    t.text('channel_code').notNullable();
    t.text('key_id').notNullable().references('id').inTable('api_keys');
    t.text('product').notNullable().checkIn(['airport-transfer', 'express-bus']);
    t.bigInteger('amount').notNullable();
    t.specificType('currency', 'char(3)').notNullable();
    t.jsonb('details').notNullable();
    t.jsonb('seats').nullable();
    t.timestamp('starts_at', { useTz: true }).notNullable();
    t.timestamp('expires_at', { useTz: true }).notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable();
    t.index(['agent_id']);
  });
  // Seats left per bus trip; a row appears with the first order on the trip.
  await knex.schema.createTable('trip_inventory', (t) => {
    t.text('trip_id').primary();
    t.text('schedule_id').notNullable();
    t.timestamp('departs_at', { useTz: true }).notNullable();
    t.integer('capacity').notNullable();
    t.integer('seats_left').notNullable();
  });
  await knex.raw(
    'ALTER TABLE trip_inventory ADD CONSTRAINT trip_inventory_seats_in_range CHECK (seats_left >= 0 AND seats_left <= capacity)',
  );
  await knex.schema.createTable('orders', (t) => {
    t.text('id').primary();
    t.text('agent_id').notNullable().references('id').inTable('agents');
    t.text('channel_code').notNullable();
    t.text('key_id').notNullable().references('id').inTable('api_keys');
    // A quote books at most once, whatever the concurrency.
    t.text('quote_id').notNullable().unique().references('id').inTable('quotes');
    t.text('product').notNullable().checkIn(['airport-transfer', 'express-bus']);
    t.text('status').notNullable().checkIn(['CONFIRMED', 'CANCELLED']);
    t.bigInteger('amount').notNullable();
    t.specificType('currency', 'char(3)').notNullable();
    t.jsonb('contact').notNullable();
    t.jsonb('passengers').notNullable();
    t.text('agent_reference').nullable();
    t.text('idempotency_key').nullable();
    t.jsonb('details').notNullable();
    t.text('trip_id').nullable();
    t.jsonb('seats').nullable();
    t.timestamp('starts_at', { useTz: true }).notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable();
    t.timestamp('cancelled_at', { useTz: true }).nullable();
    // A retry taken over after a crash finds the order instead of booking twice.
    t.unique(['agent_id', 'idempotency_key']);
  });
  await knex.raw(`ALTER TABLE orders ADD CONSTRAINT orders_cancellation_consistent CHECK (
    (status = 'CONFIRMED' AND cancelled_at IS NULL) OR (status = 'CANCELLED' AND cancelled_at IS NOT NULL))`);
  await knex.raw('CREATE INDEX orders_agent_newest ON orders (agent_id, created_at DESC, id COLLATE "C" DESC)');
  await knex.raw('CREATE INDEX orders_agent_status_newest ON orders (agent_id, status, created_at DESC, id COLLATE "C" DESC)');
}

export async function down(knex: Knex): Promise<void> {
  for (const table of ['orders', 'trip_inventory', 'quotes']) await knex.schema.dropTableIfExists(table);
}
