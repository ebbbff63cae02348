import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('idempotency_keys', (t) => {
    t.text('scope').notNullable();
    t.text('key').notNullable();
    t.text('fingerprint').notNullable();
    t.text('state').notNullable().checkIn(['IN_PROGRESS', 'DONE']);
    t.integer('status').nullable();
    t.text('content_type').nullable();
    t.text('body').nullable();
    t.timestamp('created_at', { useTz: true }).notNullable();
    t.timestamp('claimed_at', { useTz: true }).notNullable();
    t.timestamp('completed_at', { useTz: true }).nullable();
    t.primary(['scope', 'key']);
    t.index(['created_at']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('idempotency_keys');
}
