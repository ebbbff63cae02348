import type { Knex } from 'knex';
import { IDENTITY_CHANNEL } from './0001-identity-catalogue.js';

/** The table of revoked wallet tokens; its name is also the change feed's topic for them. */
export const REVOKED_TOKENS_TABLE = 'revoked_tokens';

/**
 * OAuth 2.0 for tenants:
 * - `revoked_tokens`: the `jti` of every revoked wallet token until its `exp`. Each insert is
 *   announced on the identity channel with its expiry and jti
 *   (`revoked_tokens:<exp seconds>:<jti>`), so every instance adds it to its in-memory set
 *   without reading the table per request.
 * - a second client secret per tenant, valid until the end of a rotation's overlap;
 * - disabled wallet users: `disabled_at`, and `tokens_valid_from`, before which no token of the
 *   user counts (set on disable, kept on enable, so enabling does not revive old tokens).
 * Tenants and users already announce updates (0007), so every instance's cache forgets them.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable(REVOKED_TOKENS_TABLE, (t) => {
    t.text('jti').primary();
    t.text('tenant_id').notNullable();
    t.timestamp('expires_at', { useTz: true }).notNullable();
    t.timestamp('revoked_at', { useTz: true }).notNullable();
    t.index(['expires_at'], 'revoked_tokens_expiry');
  });
  await knex.raw(`CREATE FUNCTION pbw_notify_token_revoked() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      PERFORM pg_notify('${IDENTITY_CHANNEL}',
        '${REVOKED_TOKENS_TABLE}:' || floor(extract(epoch FROM NEW.expires_at))::bigint || ':' || NEW.jti);
      RETURN NULL;
    END $$`);
  await knex.raw(`CREATE TRIGGER revoked_tokens_announced AFTER INSERT ON ${REVOKED_TOKENS_TABLE}
    FOR EACH ROW EXECUTE FUNCTION pbw_notify_token_revoked()`);

  await knex.schema.alterTable('tenants', (t) => {
    t.text('previous_client_secret_hash').nullable();
    t.timestamp('previous_secret_valid_until', { useTz: true }).nullable();
  });
  await knex.schema.alterTable('wallet_users', (t) => {
    t.timestamp('disabled_at', { useTz: true }).nullable();
    t.timestamp('tokens_valid_from', { useTz: true }).nullable();
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('wallet_users', (t) => {
    t.dropColumn('disabled_at');
    t.dropColumn('tokens_valid_from');
  });
  await knex.schema.alterTable('tenants', (t) => {
    t.dropColumn('previous_client_secret_hash');
    t.dropColumn('previous_secret_valid_until');
  });
  await knex.schema.dropTableIfExists(REVOKED_TOKENS_TABLE);
  await knex.raw('DROP FUNCTION IF EXISTS pbw_notify_token_revoked()');
}
