import type { Knex } from 'knex';

/**
 * Two concurrent first credits of one user's account both insert its row with
 * `ON CONFLICT (id) DO UPDATE`. The conflict clause covers only the primary key, so when the
 * second insert met the first one's row in the `(tenant_id, user_id)` unique index first, it
 * failed with a unique violation instead of adding to the balance. A user account's id is
 * `<tenant>:user:<user>`, so the primary key already makes `(tenant_id, user_id)` unique: the
 * second unique index only added that race. It becomes a plain index for lookups.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('ledger_accounts', (t) => {
    t.dropUnique(['tenant_id', 'user_id'], 'ledger_accounts_tenant_user_unique');
    t.index(['tenant_id', 'user_id'], 'ledger_accounts_tenant_user');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('ledger_accounts', (t) => {
    t.dropIndex(['tenant_id', 'user_id'], 'ledger_accounts_tenant_user');
    t.unique(['tenant_id', 'user_id'], { indexName: 'ledger_accounts_tenant_user_unique' });
  });
}
