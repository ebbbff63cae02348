import type { Knex } from 'knex';

/**
 * Webhooks: endpoints (the signing secret sealed with AES-256-GCM, never in plaintext), the
 * outbox of events and one delivery per event and subscribed endpoint, which is also the
 * delivery workers' queue.
 *
 * `pbw_webhook_record(events)` is called inside the transaction of the change the events report:
 * it stores each event that an endpoint of its owner subscribes to, and queues its deliveries.
 * An event nobody listens to is not stored. `pbw_ledger_record_with_events` is
 * `pbw_ledger_record` (0008) followed by that, in the same single statement and transaction.
 * `webhook_secret_keys` keeps the generated sealing key when `WEBHOOK_SECRET_KEY` is not set.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`CREATE TABLE webhook_endpoints (
    id text PRIMARY KEY,
    owner_kind text NOT NULL CHECK (owner_kind IN ('agent', 'tenant')),
    owner_id text NOT NULL,
    url text NOT NULL CHECK (length(url) <= 2048),
    events text[] NOT NULL,
    description text CHECK (length(description) <= 256),
    sealed_secret text NOT NULL,
    created_at timestamptz NOT NULL
  )`);
  await knex.raw('CREATE INDEX webhook_endpoints_owner ON webhook_endpoints (owner_kind, owner_id, created_at DESC, id DESC)');
  await knex.raw(`CREATE TABLE webhook_events (
    id text PRIMARY KEY,
    owner_kind text NOT NULL,
    owner_id text NOT NULL,
    type text NOT NULL,
    body text NOT NULL,
    created_at timestamptz NOT NULL
  )`);
  await knex.raw(`CREATE TABLE webhook_deliveries (
    id text PRIMARY KEY,
    endpoint_id text NOT NULL REFERENCES webhook_endpoints (id) ON DELETE CASCADE,
    event_id text NOT NULL REFERENCES webhook_events (id) ON DELETE CASCADE,
    status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'delivered', 'failed')),
    attempts integer NOT NULL DEFAULT 0,
    last_status_code integer,
    last_attempt_at timestamptz,
    next_attempt_at timestamptz NOT NULL DEFAULT now(),
    locked_until timestamptz,
    lease text,
    created_at timestamptz NOT NULL DEFAULT now(),
    UNIQUE (endpoint_id, event_id)
  )`);
  await knex.raw('CREATE INDEX webhook_deliveries_endpoint ON webhook_deliveries (endpoint_id, created_at DESC, id DESC)');
  await knex.raw(`CREATE INDEX webhook_deliveries_due ON webhook_deliveries (next_attempt_at) WHERE status = 'pending'`);
  await knex.raw('CREATE INDEX webhook_deliveries_event ON webhook_deliveries (event_id)');
  await knex.raw(`CREATE TABLE webhook_secret_keys (
    id text PRIMARY KEY,
    key text NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now()
  )`);
  await knex.raw(`CREATE FUNCTION pbw_webhook_record(events jsonb) RETURNS integer LANGUAGE plpgsql AS $$
    DECLARE
      queued integer := 0;
      n integer;
      e record;
    BEGIN
      FOR e IN SELECT * FROM jsonb_to_recordset(events)
          AS x(id text, owner_kind text, owner_id text, type text, body text, created_at timestamptz) LOOP
        INSERT INTO webhook_events (id, owner_kind, owner_id, type, body, created_at)
          SELECT e.id, e.owner_kind, e.owner_id, e.type, e.body, e.created_at
          WHERE EXISTS (SELECT 1 FROM webhook_endpoints w
                        WHERE w.owner_kind = e.owner_kind AND w.owner_id = e.owner_id AND e.type = ANY (w.events));
        IF FOUND THEN
          INSERT INTO webhook_deliveries (id, endpoint_id, event_id, next_attempt_at, created_at)
            SELECT 'dlv_' || replace(gen_random_uuid()::text, '-', ''), w.id, e.id, now(), e.created_at
            FROM webhook_endpoints w
            WHERE w.owner_kind = e.owner_kind AND w.owner_id = e.owner_id AND e.type = ANY (w.events);
          GET DIAGNOSTICS n = ROW_COUNT;
          queued := queued + n;
        END IF;
      END LOOP;
      RETURN queued;
    END $$`);
  await knex.raw(`CREATE FUNCTION pbw_ledger_record_with_events(txn jsonb, account_ids text[], kinds text[], user_ids text[], amounts bigint[], checked boolean[], events jsonb)
    RETURNS text LANGUAGE plpgsql AS $$
    DECLARE
      outcome text := pbw_ledger_record(txn, account_ids, kinds, user_ids, amounts, checked);
    BEGIN
      IF outcome = 'ok' THEN
        PERFORM pbw_webhook_record(events);
      END IF;
      RETURN outcome;
    END $$`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP FUNCTION IF EXISTS pbw_ledger_record_with_events(jsonb, text[], text[], text[], bigint[], boolean[], jsonb)');
  await knex.raw('DROP FUNCTION IF EXISTS pbw_webhook_record(jsonb)');
  await knex.raw('DROP TABLE IF EXISTS webhook_secret_keys');
  await knex.raw('DROP TABLE IF EXISTS webhook_deliveries');
  await knex.raw('DROP TABLE IF EXISTS webhook_events');
  await knex.raw('DROP TABLE IF EXISTS webhook_endpoints');
}
