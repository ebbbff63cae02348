import type { Knex } from 'knex';

/**
 * Sandbox owners (CONTRACT §6.7): `livemode` on agents and operators, and on the quotes and
 * orders an agent makes, which take it from their agent. Every existing row is live;
 * `agent create --test` and `operator create --test` store false, and their keys are `pbk_test_…`
 * and `pbo_test_…`. A sandbox order counts against the sandbox's stock only: a trip's seats and an
 * operator's vehicles are counted from the orders of the same mode.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw('ALTER TABLE agents ADD COLUMN livemode boolean NOT NULL DEFAULT true');
  await knex.raw('ALTER TABLE operators ADD COLUMN livemode boolean NOT NULL DEFAULT true');
  await knex.raw('ALTER TABLE quotes ADD COLUMN livemode boolean NOT NULL DEFAULT true');
  await knex.raw('ALTER TABLE orders ADD COLUMN livemode boolean NOT NULL DEFAULT true');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('ALTER TABLE orders DROP COLUMN livemode');
  await knex.raw('ALTER TABLE quotes DROP COLUMN livemode');
  await knex.raw('ALTER TABLE operators DROP COLUMN livemode');
  await knex.raw('ALTER TABLE agents DROP COLUMN livemode');
}
