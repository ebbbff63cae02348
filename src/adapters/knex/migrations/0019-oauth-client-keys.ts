import type { Knex } from 'knex';

/** The table of one-time identifiers (JWT `jti`s) already used, per namespace, until they expire. */
export const USED_ONCE_TABLE = 'used_once';

/**
 * Secretless and sender-constrained OAuth (CONTRACT §5.3):
 * - per tenant: the registered public JWK Set, the client authentication method
 *   (`client_secret` or `private_key_jwt`) and whether DPoP is required. These are tenant
 *   columns, so the tenants' change trigger (0007) announces every change and every instance's
 *   tenant cache forgets it at once;
 * - `used_once`: the `jti` of every client assertion, subject token and DPoP proof accepted,
 *   until it would have expired, so a replay is refused on every instance. The primary key makes
 *   `INSERT … ON CONFLICT DO NOTHING` the one atomic test-and-set; expired rows are purged by
 *   the retention purge through the expiry index.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('tenants', (t) => {
    t.jsonb('client_jwks').nullable();
    t.text('token_endpoint_auth_method').notNullable().defaultTo('client_secret');
    t.boolean('dpop_required').notNullable().defaultTo(false);
  });
  await knex.raw(`ALTER TABLE tenants ADD CONSTRAINT tenants_token_endpoint_auth_method_check
    CHECK (token_endpoint_auth_method IN ('client_secret', 'private_key_jwt'))`);
  await knex.schema.createTable(USED_ONCE_TABLE, (t) => {
    t.text('namespace').notNullable();
    t.text('jti').notNullable();
    t.timestamp('expires_at', { useTz: true }).notNullable();
    t.primary(['namespace', 'jti']);
    t.index(['expires_at'], 'used_once_expiry');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists(USED_ONCE_TABLE);
  await knex.raw('ALTER TABLE tenants DROP CONSTRAINT IF EXISTS tenants_token_endpoint_auth_method_check');
  await knex.schema.alterTable('tenants', (t) => {
    t.dropColumn('client_jwks');
    t.dropColumn('token_endpoint_auth_method');
    t.dropColumn('dpop_required');
  });
}
