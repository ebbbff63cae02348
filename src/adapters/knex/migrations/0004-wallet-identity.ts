import type { Knex } from 'knex';

/** Tenants, wallet users, token signing keys and login throttling. */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('tenants', (t) => {
    t.text('id').primary();
    t.text('name').notNullable();
    t.text('client_id').notNullable().unique();
    t.text('client_secret_hash').notNullable();
    t.specificType('currency', 'char(3)').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable();
    t.index(['name']);
  });
  await knex.schema.createTable('wallet_users', (t) => {
    t.text('id').primary();
    t.text('tenant_id').notNullable().references('id').inTable('tenants');
    t.text('external_user_ref').notNullable();
    t.text('email').nullable();
    t.text('password_hash').nullable();
    t.timestamp('created_at', { useTz: true }).notNullable();
    t.unique(['tenant_id', 'external_user_ref'], { indexName: 'wallet_users_tenant_ref_unique' });
    t.index(['tenant_id', 'created_at', 'id'], 'wallet_users_tenant_listing');
  });
  await knex.raw('CREATE UNIQUE INDEX wallet_users_tenant_email_unique ON wallet_users (tenant_id, lower(email)) WHERE email IS NOT NULL');

  await knex.schema.createTable('token_signing_keys', (t) => {
    t.text('kid').primary();
    t.text('ring').notNullable();
    t.text('alg').notNullable();
    t.jsonb('private_jwk').notNullable();
    t.jsonb('public_jwk').notNullable();
    t.text('status').notNullable().checkIn(['ACTIVE', 'RETIRED']);
    t.timestamp('created_at', { useTz: true }).notNullable();
    t.timestamp('retired_at', { useTz: true }).nullable();
  });
  // One active key per ring: concurrent first starts race on this index and re-read the winner.
  await knex.raw(`CREATE UNIQUE INDEX token_signing_keys_one_active ON token_signing_keys (ring) WHERE status = 'ACTIVE'`);

  await knex.schema.createTable('login_throttle', (t) => {
    t.text('key').primary();
    t.integer('attempts').notNullable();
    t.timestamp('window_started_at', { useTz: true }).notNullable();
    t.timestamp('locked_until', { useTz: true }).nullable();
  });
}

export async function down(knex: Knex): Promise<void> {
  for (const table of ['login_throttle', 'token_signing_keys', 'wallet_users', 'tenants']) {
    await knex.schema.dropTableIfExists(table);
  }
}
