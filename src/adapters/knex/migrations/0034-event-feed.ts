import type { Knex } from 'knex';

/**
 * The event feed (CONTRACT §6.7): `webhook_events` now keeps every event of its owner, whether or
 * not an endpoint subscribes (`pbw_webhook_record` inserts it first, deliveries only for the
 * subscribed endpoints), so that `GET /api/v1/events` and `GET /events` miss nothing.
 *
 * Its order: `txid`, the writing transaction's id (assigned when the transaction first writes,
 * never at commit), then `seq`, the insert order. A transaction that is still open may commit
 * after a later one, so the feed serves only rows whose `txid` is below the oldest transaction
 * still running (`pg_snapshot_xmin(pg_current_snapshot())`): no row can appear behind a position
 * the feed has served (docs/adr/0011-event-feed-ordering.md).
 *
 * `test` marks the sample events of test deliveries: they are sent like any event, never served
 * by the feed. Existing rows all take this migration's transaction id, in their stored order.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw('ALTER TABLE webhook_events ADD COLUMN txid xid8 NOT NULL DEFAULT pg_current_xact_id()');
  await knex.raw('ALTER TABLE webhook_events ADD COLUMN seq bigint GENERATED ALWAYS AS IDENTITY');
  await knex.raw('ALTER TABLE webhook_events ADD COLUMN test boolean NOT NULL DEFAULT false');
  await knex.raw('CREATE INDEX webhook_events_feed ON webhook_events (owner_kind, owner_id, txid, seq) WHERE NOT test');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP INDEX IF EXISTS webhook_events_feed');
  await knex.raw('DELETE FROM webhook_events e WHERE NOT EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.event_id = e.id) OR e.test');
  await knex.raw('ALTER TABLE webhook_events DROP COLUMN test');
  await knex.raw('ALTER TABLE webhook_events DROP COLUMN seq');
  await knex.raw('ALTER TABLE webhook_events DROP COLUMN txid');
}
