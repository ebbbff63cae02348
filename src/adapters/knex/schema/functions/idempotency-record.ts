import type { SqlFunction } from './sql-function.js';

/**
 * Stores a completed idempotency key with its answer, `k` a record of `scope`, `key`,
 * `fingerprint`, `status`, `content_type`, `body`, `headers` (an object or null), `claimed_at`
 * and `completed_at`. It inserts and never overwrites: a key already stored, or held by another
 * request's open transaction (which it waits for), fails with the primary key's unique violation.
 * An answer is required: a key is never stored done without one.
 */
export const idempotencyRecord: SqlFunction = {
  signature: 'pbw_idempotency_record(jsonb)',
  parameters: 'k jsonb',
  returns: 'text',
  language: 'plpgsql',
  body: `
    BEGIN
      IF k->>'status' IS NULL OR k->>'content_type' IS NULL OR k->>'body' IS NULL THEN
        RAISE EXCEPTION 'idempotency key % stored without its answer', k->>'key' USING ERRCODE = '23502';
      END IF;
      INSERT INTO idempotency_keys (scope, key, fingerprint, state, status, content_type, body, headers,
          created_at, claimed_at, completed_at)
        VALUES (k->>'scope', k->>'key', k->>'fingerprint', 'DONE', (k->>'status')::integer, k->>'content_type', k->>'body',
          CASE WHEN jsonb_typeof(k->'headers') = 'object' THEN k->'headers' END,
          (k->>'claimed_at')::timestamptz, (k->>'claimed_at')::timestamptz, (k->>'completed_at')::timestamptz);
      RETURN 'ok';
    END `,
};
