import type { Knex } from 'knex';

/**
 * One write path for every ledger transaction: `pbw_ledger_write`, used for top-ups, payments,
 * transfers and refunds alike, in place of `pbw_ledger_record` (0008, which copied a jsonb into
 * the table's row type and inserted `(t).*`, breaking as soon as a column got a default) and its
 * wrapper `pbw_ledger_record_with_events` (0012). Every insert names its columns.
 *
 * Arguments: the transaction's columns, then its postings in account-id order (the order every
 * ledger writer takes its row locks in, decided by the domain), then its outbox events (null for
 * none). In that order it
 * - for a refund, adds the amount to its payment's `refunded_amount`, only while the total stays
 *   within the payment (the caller has read and checked the payment under its row lock; this is
 *   the guard behind that check);
 * - inserts the transaction (its unique idempotency key makes a concurrent duplicate wait here,
 *   before it holds any account lock, and then refuses it) and records its events with
 *   `pbw_webhook_record` (0012);
 * - moves each posting: a checked debit (`checked[i]`, the domain's `mayGoNegative`) is an
 *   `UPDATE … WHERE balance >= amount` decided under the row lock; any other posting is an upsert
 *   that creates the account on its first posting. Both only touch an account of the
 *   transaction's currency. The accounts' row locks, of which the tenant's settlement and
 *   funding shards are shared by every write of the tenant, are taken as late as possible and
 *   held until the commit: after them only the entries are inserted;
 * - inserts the entries (the deferred trigger of 0005 still checks that they balance at commit).
 * A refused step raises SQLSTATE PB001 with a message saying which (`short:<KIND>`,
 * `currency:<CUR>`, `refund`), which aborts the whole transaction: nothing of it is kept, and no
 * subtransaction is paid for on the path that succeeds. The adapter turns PB001 into the
 * domain's error; the domain has checked amounts, parties and refundable amounts before.
 *
 * Fewer index updates on every write: `refund_of` is indexed only where it is set (refunds find
 * their payment by it; every other transaction added a null to that index), and the entries'
 * `account_id` index goes: nothing reads entries by account (balances live on the accounts), and
 * accounts are never deleted, which is all the foreign key would need it for.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`CREATE FUNCTION pbw_ledger_write(
      p_id text, p_tenant_id text, p_type text, p_amount bigint, p_currency text, p_user_id text,
      p_counterparty_user_id text, p_reference text, p_description text, p_refund_of text,
      p_initiator_kind text, p_initiator_client_id text, p_initiator_user_id text, p_initiator_amr text[],
      p_initiator_act_sub text, p_idempotency_scope text, p_idempotency_key text, p_created_at timestamptz,
      account_ids text[], kinds text[], user_ids text[], amounts bigint[], checked boolean[], events jsonb)
    RETURNS text LANGUAGE plpgsql AS $$
    DECLARE
      held text;
    BEGIN
      IF p_refund_of IS NOT NULL THEN
        UPDATE ledger_transactions SET refunded_amount = refunded_amount + p_amount
          WHERE id = p_refund_of AND tenant_id = p_tenant_id AND type = 'PAYMENT' AND refunded_amount + p_amount <= amount;
        IF NOT FOUND THEN
          RAISE EXCEPTION USING ERRCODE = 'PB001', MESSAGE = 'refund';
        END IF;
      END IF;
      INSERT INTO ledger_transactions (id, tenant_id, type, amount, currency, user_id, counterparty_user_id, reference,
          description, refund_of, initiator_kind, initiator_client_id, initiator_user_id, initiator_amr,
          initiator_act_sub, idempotency_scope, idempotency_key, created_at)
        VALUES (p_id, p_tenant_id, p_type, p_amount, p_currency, p_user_id, p_counterparty_user_id, p_reference,
          p_description, p_refund_of, p_initiator_kind, p_initiator_client_id, p_initiator_user_id, p_initiator_amr,
          p_initiator_act_sub, p_idempotency_scope, p_idempotency_key, p_created_at);
      IF events IS NOT NULL THEN
        PERFORM pbw_webhook_record(events);
      END IF;
      FOR i IN 1 .. cardinality(account_ids) LOOP
        IF checked[i] THEN
          UPDATE ledger_accounts SET balance = balance + amounts[i]
            WHERE id = account_ids[i] AND balance >= -amounts[i] AND currency = p_currency;
        ELSE
          INSERT INTO ledger_accounts (id, tenant_id, kind, user_id, currency, balance, created_at)
            VALUES (account_ids[i], p_tenant_id, kinds[i], user_ids[i], p_currency, amounts[i], p_created_at)
            ON CONFLICT (id) DO UPDATE SET balance = ledger_accounts.balance + EXCLUDED.balance
              WHERE ledger_accounts.currency = EXCLUDED.currency;
        END IF;
        IF NOT FOUND THEN
          SELECT currency INTO held FROM ledger_accounts WHERE id = account_ids[i];
          IF held IS NOT NULL AND held <> p_currency THEN
            RAISE EXCEPTION USING ERRCODE = 'PB001', MESSAGE = 'currency:' || held;
          END IF;
          RAISE EXCEPTION USING ERRCODE = 'PB001', MESSAGE = 'short:' || kinds[i];
        END IF;
      END LOOP;
      INSERT INTO ledger_entries (transaction_id, account_id, amount, created_at)
        SELECT p_id, u.account_id, u.amount, p_created_at FROM unnest(account_ids, amounts) AS u(account_id, amount);
      RETURN 'ok';
    END $$`);
  await knex.raw('DROP FUNCTION pbw_ledger_record_with_events(jsonb, text[], text[], text[], bigint[], boolean[], jsonb)');
  await knex.raw('DROP FUNCTION pbw_ledger_record(jsonb, text[], text[], text[], bigint[], boolean[])');
  await knex.raw('DROP INDEX ledger_transactions_refund_of');
  await knex.raw('CREATE INDEX ledger_transactions_refund_of ON ledger_transactions (refund_of) WHERE refund_of IS NOT NULL');
  await knex.raw('DROP INDEX ledger_entries_account_id_index');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('CREATE INDEX ledger_entries_account_id_index ON ledger_entries (account_id)');
  await knex.raw('DROP INDEX ledger_transactions_refund_of');
  await knex.raw('CREATE INDEX ledger_transactions_refund_of ON ledger_transactions (refund_of)');
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
  await knex.raw(`CREATE FUNCTION pbw_ledger_record_with_events(txn jsonb, account_ids text[], kinds text[], user_ids text[], amounts bigint[], checked boolean[], events jsonb)
    RETURNS text LANGUAGE plpgsql AS $$
    DECLARE
      outcome text := pbw_ledger_record(txn, account_ids, kinds, user_ids, amounts, checked);
    BEGIN
      IF outcome = 'ok' THEN
        PERFORM pbw_webhook_record(events);
      END IF;
      RETURN outcome;
    END $$`);
  await knex.raw(
    'DROP FUNCTION pbw_ledger_write(text, text, text, bigint, text, text, text, text, text, text, text, text, text, text[], text, text, text, timestamptz, text[], text[], text[], bigint[], boolean[], jsonb)',
  );
}
