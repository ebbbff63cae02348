import type { Knex } from 'knex';

/**
 * Double entry, checked once per statement instead of once per entry at commit. The deferred
 * constraint trigger of 0005 ran a sum over the transaction's entries for every entry written (two
 * for a payment, each a query of its own at commit). Entries are only ever written by
 * `pbw_ledger_write`, all of a transaction's in one statement, so the check now runs after each
 * statement that inserts or updates entries, over the rows it changed (transition tables), without
 * reading the table: the entries a statement inserts must sum to zero per transaction, and an
 * update must leave each transaction's sum as it was. With every transaction balanced before, that
 * is every transaction balanced after. A statement that breaks it fails (and so the whole write).
 * Writing a transaction's entries over several statements is refused, which no writer does.
 */
const INSERT_CHECK = `CREATE FUNCTION pbw_ledger_entries_inserted_balance() RETURNS trigger LANGUAGE plpgsql AS $$
    DECLARE
      unbalanced text;
    BEGIN
      SELECT transaction_id INTO unbalanced FROM inserted GROUP BY transaction_id HAVING SUM(amount) <> 0 LIMIT 1;
      IF unbalanced IS NOT NULL THEN
        RAISE EXCEPTION 'ledger entries of % do not balance', unbalanced USING ERRCODE = '23514';
      END IF;
      RETURN NULL;
    END $$`;

const UPDATE_CHECK = `CREATE FUNCTION pbw_ledger_entries_updated_balance() RETURNS trigger LANGUAGE plpgsql AS $$
    DECLARE
      unbalanced text;
    BEGIN
      SELECT transaction_id INTO unbalanced
        FROM (SELECT transaction_id, amount FROM updated UNION ALL SELECT transaction_id, -amount FROM replaced) AS change
        GROUP BY transaction_id HAVING SUM(amount) <> 0 LIMIT 1;
      IF unbalanced IS NOT NULL THEN
        RAISE EXCEPTION 'ledger entries of % do not balance', unbalanced USING ERRCODE = '23514';
      END IF;
      RETURN NULL;
    END $$`;

export async function up(knex: Knex): Promise<void> {
  await knex.raw(INSERT_CHECK);
  await knex.raw(UPDATE_CHECK);
  await knex.raw(`CREATE TRIGGER ledger_entries_balanced_insert AFTER INSERT ON ledger_entries
    REFERENCING NEW TABLE AS inserted FOR EACH STATEMENT EXECUTE FUNCTION pbw_ledger_entries_inserted_balance()`);
  await knex.raw(`CREATE TRIGGER ledger_entries_balanced_update AFTER UPDATE ON ledger_entries
    REFERENCING OLD TABLE AS replaced NEW TABLE AS updated FOR EACH STATEMENT EXECUTE FUNCTION pbw_ledger_entries_updated_balance()`);
  await knex.raw('DROP TRIGGER ledger_entries_balanced ON ledger_entries');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`CREATE CONSTRAINT TRIGGER ledger_entries_balanced AFTER INSERT OR UPDATE ON ledger_entries
    DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION pbw_ledger_entries_balanced()`);
  await knex.raw('DROP TRIGGER ledger_entries_balanced_update ON ledger_entries');
  await knex.raw('DROP TRIGGER ledger_entries_balanced_insert ON ledger_entries');
  await knex.raw('DROP FUNCTION pbw_ledger_entries_updated_balance()');
  await knex.raw('DROP FUNCTION pbw_ledger_entries_inserted_balance()');
}
