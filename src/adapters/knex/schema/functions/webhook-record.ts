import type { SqlFunction } from './sql-function.js';

/**
 * The outbox's write: records each event (`events`, a JSON array of `{id, owner_kind, owner_id,
 * type, body, created_at}`) for which its owner has an endpoint subscribed to its type, and
 * queues a delivery per such endpoint. Returns how many deliveries it queued.
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
    END `,
};
