import type { Knex } from 'knex';

/**
 * The keys operators call `/operator/v1/` with (CONTRACT §6.3): only each key's hash is kept,
 * looked up by equality. Every change is announced on the identity channel, as for agent keys,
 * so a revocation reaches the resolver cache of every instance when it commits.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('operator_keys', (t) => {
    t.text('id').primary();
    t.text('operator_code').notNullable().references('code').inTable('operators');
    t.text('key_hash').notNullable().unique();
    t.text('prefix').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable();
    t.timestamp('revoked_at', { useTz: true }).nullable();
    t.index(['operator_code']);
  });
  await knex.raw(`CREATE TRIGGER operator_keys_identity_changed AFTER INSERT OR UPDATE OR DELETE ON operator_keys
    FOR EACH STATEMENT EXECUTE FUNCTION pbw_notify_identity()`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('operator_keys');
}
