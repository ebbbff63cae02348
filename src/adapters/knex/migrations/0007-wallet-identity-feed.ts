import type { Knex } from 'knex';

const TABLES = ['tenants', 'wallet_users'] as const;

/**
 * Tenants and wallet users are cached per instance like API keys, so a change to either is
 * announced on the identity channel (by the function of 0001, with the table's name) when its
 * transaction commits, whoever makes it. Inserts are not announced: only found rows are cached.
 */
export async function up(knex: Knex): Promise<void> {
  for (const table of TABLES) {
    await knex.raw(`CREATE TRIGGER ${table}_identity_changed AFTER UPDATE OR DELETE OR TRUNCATE ON ${table}
      FOR EACH STATEMENT EXECUTE FUNCTION pbw_notify_identity()`);
  }
}

export async function down(knex: Knex): Promise<void> {
  for (const table of TABLES) await knex.raw(`DROP TRIGGER IF EXISTS ${table}_identity_changed ON ${table}`);
}
