import type { Knex } from 'knex';

/**
 * Key policies and the security trail.
 * - `api_keys` gain `name`, `scopes` (every existing key is a full key, `{*}`), `allowed_ips`
 *   (CIDRs; empty for anywhere) and `created_by_key_id` (the key that created it through the API:
 *   a leak revokes what the leaked key created, at any depth). `revoked_reason` gains `revoked`
 *   (a key revoked by a key of its agent that created it).
 * - `api_key_expiry_notices`: one row per key whose expiry notice was sent, claimed by its insert
 *   in the transaction that records the webhook event; a table of its own so that the claim
 *   never fires the identity trigger of `api_keys` (which would empty every key cache).
 * - `security_events`: append-only in the database itself. A trigger refuses every UPDATE and
 *   DELETE unless the transaction set `pbw.security_event_purge` (only the retention purge does).
 *   Refusals (`api_key.refused`, `user.login_failed`) are kept once per subject, reason and UTC
 *   minute by a unique index the insert's ON CONFLICT DO NOTHING relies on.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`ALTER TABLE api_keys
    ADD COLUMN name text CHECK (length(name) <= 100),
    ADD COLUMN scopes text[] NOT NULL DEFAULT '{*}' CHECK (cardinality(scopes) >= 1),
    ADD COLUMN allowed_ips text[] NOT NULL DEFAULT '{}' CHECK (cardinality(allowed_ips) <= 20),
    ADD COLUMN created_by_key_id text REFERENCES api_keys (id)`);
  await knex.raw('CREATE INDEX api_keys_created_by_key_id ON api_keys (created_by_key_id) WHERE created_by_key_id IS NOT NULL');
  await knex.raw(`CREATE INDEX api_keys_expiring ON api_keys (expires_at) WHERE expires_at IS NOT NULL AND status = 'ACTIVE'`);
  await knex.raw('ALTER TABLE api_keys DROP CONSTRAINT IF EXISTS api_keys_revoked_reason_check');
  await knex.raw(`ALTER TABLE api_keys ADD CONSTRAINT api_keys_revoked_reason_check
    CHECK (revoked_reason IN ('rotated', 'leaked', 'operator', 'revoked'))`);
  await knex.raw(`CREATE TABLE api_key_expiry_notices (
    key_id text PRIMARY KEY REFERENCES api_keys (id) ON DELETE CASCADE,
    sent_at timestamptz NOT NULL)`);
  await knex.raw(`CREATE TABLE security_events (
    id text PRIMARY KEY,
    owner_kind text NOT NULL CHECK (owner_kind IN ('agent', 'tenant')),
    owner_id text NOT NULL,
    type text NOT NULL CHECK (length(type) <= 64),
    occurred_at timestamptz NOT NULL,
    actor jsonb NOT NULL,
    subject_kind text NOT NULL,
    subject_id text NOT NULL,
    ip text,
    request_id text,
    details jsonb NOT NULL DEFAULT '{}')`);
  await knex.raw('CREATE INDEX security_events_owner ON security_events (owner_kind, owner_id, occurred_at DESC, id COLLATE "C" DESC)');
  await knex.raw('CREATE INDEX security_events_occurred ON security_events (occurred_at)');
  await knex.raw(`CREATE UNIQUE INDEX security_events_refusal_per_minute ON security_events
    (type, subject_kind, subject_id, (coalesce(details->>'reason', '')), date_trunc('minute', occurred_at AT TIME ZONE 'UTC'))
    WHERE type IN ('api_key.refused', 'user.login_failed')`);
  await knex.raw(`CREATE FUNCTION pbw_security_events_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF TG_OP = 'DELETE' AND current_setting('pbw.security_event_purge', true) = 'on' THEN
        RETURN OLD;
      END IF;
      RAISE EXCEPTION 'security events are append-only (% refused)', TG_OP USING ERRCODE = 'insufficient_privilege';
    END $$`);
  await knex.raw(`CREATE TRIGGER security_events_append_only BEFORE UPDATE OR DELETE ON security_events
    FOR EACH ROW EXECUTE FUNCTION pbw_security_events_append_only()`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP TABLE IF EXISTS security_events');
  await knex.raw('DROP FUNCTION IF EXISTS pbw_security_events_append_only()');
  await knex.raw('DROP TABLE IF EXISTS api_key_expiry_notices');
  await knex.raw('ALTER TABLE api_keys DROP CONSTRAINT IF EXISTS api_keys_revoked_reason_check');
  await knex.raw(`ALTER TABLE api_keys ADD CONSTRAINT api_keys_revoked_reason_check
    CHECK (revoked_reason IN ('rotated', 'leaked', 'operator'))`);
  await knex.raw('DROP INDEX IF EXISTS api_keys_expiring');
  await knex.raw('DROP INDEX IF EXISTS api_keys_created_by_key_id');
  await knex.raw('ALTER TABLE api_keys DROP COLUMN name, DROP COLUMN scopes, DROP COLUMN allowed_ips, DROP COLUMN created_by_key_id');
}
