import type { SqlFunction } from './sql-function.js';

/**
 * The outbox's write: records every event (`events`, a JSON array of `{id, owner_kind, owner_id,
 * type, body, created_at}`) for its owner, one insert each, whether or not an endpoint listens
 * (the event feed serves them all, in `(txid, seq)` order: migration 0034), and queues a delivery
 * per endpoint of the owner subscribed to its type. Returns how many deliveries it queued.
 */
export const webhookRecord: SqlFunction = {
  signature: 'pbw_webhook_record(jsonb)',
  parameters: 'events jsonb',
  returns: 'integer',
  language: 'plpgsql',
  body: `
    DECLARE
      queued integer := 0;
      n integer;
      e record;
    BEGIN
      FOR e IN SELECT * FROM jsonb_to_recordset(events)
          AS x(id text, owner_kind text, owner_id text, type text, body text, created_at timestamptz) LOOP
        INSERT INTO webhook_events (id, owner_kind, owner_id, type, body, created_at)
          VALUES (e.id, e.owner_kind, e.owner_id, e.type, e.body, e.created_at);
        INSERT INTO webhook_deliveries (id, endpoint_id, event_id, next_attempt_at, created_at)
          SELECT 'dlv_' || replace(gen_random_uuid()::text, '-', ''), w.id, e.id, now(), e.created_at
          FROM webhook_endpoints w
          WHERE w.owner_kind = e.owner_kind AND w.owner_id = e.owner_id AND e.type = ANY (w.events);
        GET DIAGNOSTICS n = ROW_COUNT;
        queued := queued + n;
      END LOOP;
      RETURN queued;
    END `,
};
