import type { Knex } from 'knex';

/**
 * Replayed answers carry the headers that describe the resource (`Location`, `Cache-Control`),
 * so the stored response keeps them.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('idempotency_keys', (t) => {
    t.jsonb('headers').nullable();
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('idempotency_keys', (t) => {
    t.dropColumn('headers');
  });
}
