import type { Knex } from 'knex';

/**
 * One index serves every read of an account's entries by time: `ledger_entries_account_at`
 * (account, instant, applied order, with each entry's amount and the balance it left, 0037).
 * The agent statement now reads through it too, so the older `ledger_entries_account_time`
 * (0032) only cost every ledger write a second index update.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw('DROP INDEX IF EXISTS ledger_entries_account_time');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(
    'CREATE INDEX IF NOT EXISTS ledger_entries_account_time ON ledger_entries (account_id, created_at, transaction_id) INCLUDE (amount)',
  );
}
