import type { Knex } from 'knex';

/**
 * `pbw_idempotency_record`: stores a completed idempotency key with its answer, as one function
 * call, so that a unit of work can send its claim, its write and the stored answer together in
 * one statement (`KnexUnitOfWork`). It inserts and never overwrites: a key already stored, or
 * held by another request's open transaction (which it waits for), fails the whole statement with
 * the primary key's unique violation, and nothing of that statement is kept. An answer is
 * required: a key is never stored done without one.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`CREATE FUNCTION pbw_idempotency_record(
      p_scope text, p_key text, p_fingerprint text, p_status integer, p_content_type text, p_body text,
      p_headers jsonb, p_claimed_at timestamptz, p_completed_at timestamptz)
    RETURNS text LANGUAGE plpgsql AS $$
    BEGIN
      IF p_status IS NULL OR p_content_type IS NULL OR p_body IS NULL THEN
        RAISE EXCEPTION 'idempotency key % stored without its answer', p_key USING ERRCODE = '23502';
      END IF;
      INSERT INTO idempotency_keys (scope, key, fingerprint, state, status, content_type, body, headers,
          created_at, claimed_at, completed_at)
        VALUES (p_scope, p_key, p_fingerprint, 'DONE', p_status, p_content_type, p_body, p_headers,
          p_claimed_at, p_claimed_at, p_completed_at);
      RETURN 'ok';
    END $$`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP FUNCTION IF EXISTS pbw_idempotency_record(text, text, text, integer, text, text, jsonb, timestamptz, timestamptz)');
}
