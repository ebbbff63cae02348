import type { Knex } from 'knex';

/**
 * Keys that agents manage themselves, and cancellation terms.
 * - `api_keys.rolled_from_key_id`: the key a key was rolled from, so a leak revokes the whole
 *   lineage. A rolled key's own revocation (`rotated`) is stored with `revoked_at` at the end of
 *   its overlap, which may lie in the future: the key is usable until then.
 * - `api_key_usage`: when each key was last used, written in batches off the request path, in a
 *   table of its own so that these writes never fire the identity trigger of `api_keys` (which
 *   would empty every instance's key cache).
 * - Channels carry their cancellation terms; an order keeps the terms it was booked under, and
 *   a cancelled order the refund and fee it was cancelled with.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('api_keys', (t) => {
    t.text('rolled_from_key_id').nullable().references('id').inTable('api_keys');
    t.index(['rolled_from_key_id']);
  });
  await knex.schema.createTable('api_key_usage', (t) => {
    t.text('key_id').primary().references('id').inTable('api_keys').onDelete('CASCADE');
    t.timestamp('last_used_at', { useTz: true }).notNullable();
  });
  await knex.schema.alterTable('channels', (t) => {
    t.integer('free_cancellation_hours').notNullable().defaultTo(24);
    t.integer('late_cancellation_fee_bps').notNullable().defaultTo(5000);
  });
  await knex.raw(`ALTER TABLE channels ADD CONSTRAINT channels_cancellation_terms CHECK (
    free_cancellation_hours BETWEEN 0 AND 8760 AND late_cancellation_fee_bps BETWEEN 0 AND 10000)`);
  await knex.schema.alterTable('orders', (t) => {
    t.integer('free_cancellation_hours').notNullable().defaultTo(24);
    t.integer('late_cancellation_fee_bps').notNullable().defaultTo(5000);
    t.bigInteger('refund_amount').nullable();
    t.bigInteger('fee_amount').nullable();
  });
  await knex.raw(`ALTER TABLE orders ADD CONSTRAINT orders_refund_consistent CHECK (
    (refund_amount IS NULL) = (fee_amount IS NULL)
    AND (refund_amount IS NULL OR (refund_amount >= 0 AND fee_amount >= 0 AND refund_amount + fee_amount = amount)))`);
  await knex.raw(`CREATE INDEX orders_agent_reference ON orders (agent_id, agent_reference, created_at DESC, id COLLATE "C" DESC)
    WHERE agent_reference IS NOT NULL`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP INDEX IF EXISTS orders_agent_reference');
  await knex.raw('ALTER TABLE orders DROP CONSTRAINT IF EXISTS orders_refund_consistent');
  await knex.schema.alterTable('orders', (t) => {
    t.dropColumns('free_cancellation_hours', 'late_cancellation_fee_bps', 'refund_amount', 'fee_amount');
  });
  await knex.raw('ALTER TABLE channels DROP CONSTRAINT IF EXISTS channels_cancellation_terms');
  await knex.schema.alterTable('channels', (t) => t.dropColumns('free_cancellation_hours', 'late_cancellation_fee_bps'));
  await knex.schema.dropTableIfExists('api_key_usage');
  await knex.schema.alterTable('api_keys', (t) => t.dropColumn('rolled_from_key_id'));
}
