import type { Knex } from 'knex';

/**
 * Vouchers redeemed by their operators (CONTRACT §6.5): one row per order, its primary key the
 * order's id, so a voucher is redeemed at most once whatever the concurrency, and a row exists
 * exactly when the redemption (and its `order.voucher_redeemed` event) committed.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('voucher_redemptions', (t) => {
    t.text('order_id').primary().references('id').inTable('orders').onDelete('CASCADE');
    t.text('operator_code').notNullable();
    t.timestamp('redeemed_at', { useTz: true }).notNullable();
    t.integer('passengers').notNullable();
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('voucher_redemptions');
}
