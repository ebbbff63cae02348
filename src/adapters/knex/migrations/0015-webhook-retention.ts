import type { Knex } from 'knex';

/**
 * Webhook retention (CONTRACT §5.4): delivered and failed deliveries are purged some days after
 * their last attempt, and events once no delivery is left. These indexes let each bounded purge
 * batch find its rows without reading the whole queue.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(
    `CREATE INDEX webhook_deliveries_finished ON webhook_deliveries (last_attempt_at) WHERE status IN ('delivered', 'failed')`,
  );
  await knex.raw('CREATE INDEX webhook_events_created ON webhook_events (created_at)');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP INDEX IF EXISTS webhook_events_created');
  await knex.raw('DROP INDEX IF EXISTS webhook_deliveries_finished');
}
