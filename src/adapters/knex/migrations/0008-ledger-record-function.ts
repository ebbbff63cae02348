import type { Knex } from 'knex';

/**
 * Records a top-up, payment or transfer in one round trip: `pbw_ledger_record(txn, accounts,
 * kinds, user ids, amounts, checked)` with the postings in account-id order, the order every
 * ledger writer takes its row locks in. Each posting is, in that order, a checked debit (`UPDATE
 * … WHERE balance >= amount`, decided under the row lock) or otherwise an upsert that creates the
 * account on its first posting. Which debits are checked is the domain's rule (`mayGoNegative`),
 * passed in, not repeated here; then the transaction (whose
 * unique idempotency key refuses a duplicate) and its entries, which the deferred trigger of 0005
 * still checks for balance at commit. A debit that would overdraw undoes the postings made so far
 * (the block's subtransaction) and returns `short:<KIND>`, so the caller can tell a refusal from
 * a fault without the server logging an error for every short balance. Called as a statement of
 * its own it is its own transaction: one round trip and one commit instead of five statements.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`CREATE FUNCTION pbw_ledger_record(txn jsonb, account_ids text[], kinds text[], user_ids text[], amounts bigint[], checked boolean[])
    RETURNS text LANGUAGE plpgsql AS $$
    DECLARE
      t ledger_transactions := jsonb_populate_record(NULL::ledger_transactions, txn);
    BEGIN
      FOR i IN 1 .. cardinality(account_ids) LOOP
        IF checked[i] THEN
          UPDATE ledger_accounts SET balance = balance + amounts[i] WHERE id = account_ids[i] AND balance >= -amounts[i];
          IF NOT FOUND THEN
            RAISE EXCEPTION USING ERRCODE = 'PB001', MESSAGE = 'short:' || kinds[i];
          END IF;
        ELSE
          INSERT INTO ledger_accounts (id, tenant_id, kind, user_id, currency, balance, created_at)
          VALUES (account_ids[i], t.tenant_id, kinds[i], user_ids[i], t.currency, amounts[i], t.created_at)
          ON CONFLICT (id) DO UPDATE SET balance = ledger_accounts.balance + EXCLUDED.balance;
        END IF;
      END LOOP;
      INSERT INTO ledger_transactions SELECT (t).*;
      INSERT INTO ledger_entries (transaction_id, account_id, amount, created_at)
        SELECT t.id, u.account_id, u.amount, t.created_at FROM unnest(account_ids, amounts) AS u(account_id, amount);
      RETURN 'ok';
    EXCEPTION WHEN SQLSTATE 'PB001' THEN
      RETURN SQLERRM;
    END $$`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP FUNCTION IF EXISTS pbw_ledger_record(jsonb, text[], text[], text[], bigint[], boolean[])');
}
