import type { Knex } from 'knex';

/** Sandbox tenants (`tenant create --test`): every tenant so far is live. */
export async function up(knex: Knex): Promise<void> {
  await knex.raw('ALTER TABLE tenants ADD COLUMN livemode boolean NOT NULL DEFAULT true');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('ALTER TABLE tenants DROP COLUMN livemode');
}
