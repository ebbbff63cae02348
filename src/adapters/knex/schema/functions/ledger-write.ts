import type { SqlFunction } from './sql-function.js';

/**
 * The ledger's one write: a top-up, payment, transfer or refund, `w` a record of the transaction
 * (`id`, `tenant_id`, `type`, `amount`, `currency`, `user_id`, `counterparty_user_id`,
 * `reference`, `description`, `refund_of`, `initiator_kind`, `initiator_client_id`,
 * `initiator_user_id`, `initiator_amr` (an array or null), `initiator_act_sub`, `authorization_id`
 * (a capture's authorization, or null), `created_at`),
 * its `postings` in lock order (each `{account_id, kind, user_id, amount, checked}`) and its
 * `events` for the outbox (an array, or null). A refund first adds itself to its payment's
 * refunded amount, guarded. Then the transaction row, its events, each account in order (a
 * checked debit is `UPDATE … WHERE balance >= amount`, decided under the row lock; anything else
 * an upsert), and the entries. Each refusal has its own SQLSTATE, what the error needs in DETAIL:
 *
 * | SQLSTATE | refusal                                                       | DETAIL                  |
 * | -------- | ------------------------------------------------------------- | ----------------------- |
 * | PB010    | a checked debit of a user's account found too little          | the account id          |
 * | PB011    | a checked debit of a tenant's own account found too little    | the account id          |
 * | PB020    | an account of the transaction holds another currency          | that account's currency |
 * | PB030    | a refund would take its payment's refunds past the payment    | the payment id          |
 *
 * A refusal aborts the whole statement: nothing of the transaction, its entries or events is kept.
 */
export const ledgerWrite: SqlFunction = {
  signature: 'pbw_ledger_write(jsonb)',
  parameters: 'w jsonb',
  returns: 'text',
  language: 'plpgsql',
  body: `
    DECLARE
      held text;
      v_id text := w->>'id';
      v_tenant_id text := w->>'tenant_id';
      v_amount bigint := (w->>'amount')::bigint;
      v_currency text := w->>'currency';
      v_refund_of text := w->>'refund_of';
      v_created_at timestamptz := (w->>'created_at')::timestamptz;
      p record;
    BEGIN
      IF v_refund_of IS NOT NULL THEN
        UPDATE ledger_transactions SET refunded_amount = refunded_amount + v_amount
          WHERE id = v_refund_of AND tenant_id = v_tenant_id AND type = 'PAYMENT' AND refunded_amount + v_amount <= amount;
        IF NOT FOUND THEN
          RAISE EXCEPTION USING ERRCODE = 'PB030', MESSAGE = 'ledger: refund exceeds payment', DETAIL = v_refund_of;
        END IF;
      END IF;
      INSERT INTO ledger_transactions (id, tenant_id, type, amount, currency, user_id, counterparty_user_id, reference,
          description, refund_of, initiator_kind, initiator_client_id, initiator_user_id, initiator_amr,
          initiator_act_sub, authorization_id, created_at)
        VALUES (v_id, v_tenant_id, w->>'type', v_amount, v_currency, w->>'user_id', w->>'counterparty_user_id',
          w->>'reference', w->>'description', v_refund_of, w->>'initiator_kind', w->>'initiator_client_id',
          w->>'initiator_user_id',
          CASE WHEN jsonb_typeof(w->'initiator_amr') = 'array' THEN ARRAY(SELECT jsonb_array_elements_text(w->'initiator_amr')) END,
          w->>'initiator_act_sub', w->>'authorization_id', v_created_at);
      IF jsonb_typeof(w->'events') = 'array' THEN
        PERFORM pbw_webhook_record(w->'events');
      END IF;
      FOR p IN SELECT e.p->>'account_id' AS account_id, e.p->>'kind' AS kind, e.p->>'user_id' AS user_id,
            (e.p->>'amount')::bigint AS amount, (e.p->>'checked')::boolean AS checked
          FROM jsonb_array_elements(w->'postings') WITH ORDINALITY AS e(p, i) ORDER BY e.i LOOP
        IF p.checked THEN
          UPDATE ledger_accounts SET balance = balance + p.amount
            WHERE id = p.account_id AND balance >= -p.amount AND currency = v_currency;
        ELSE
          INSERT INTO ledger_accounts (id, tenant_id, kind, user_id, currency, balance, created_at)
            VALUES (p.account_id, v_tenant_id, p.kind, p.user_id, v_currency, p.amount, v_created_at)
            ON CONFLICT (id) DO UPDATE SET balance = ledger_accounts.balance + EXCLUDED.balance
              WHERE ledger_accounts.currency = EXCLUDED.currency;
        END IF;
        IF NOT FOUND THEN
          SELECT currency INTO held FROM ledger_accounts WHERE id = p.account_id;
          IF held IS NOT NULL AND held <> v_currency THEN
            RAISE EXCEPTION USING ERRCODE = 'PB020', MESSAGE = 'ledger: account holds another currency', DETAIL = held;
          END IF;
          IF p.kind = 'USER' THEN
            RAISE EXCEPTION USING ERRCODE = 'PB010', MESSAGE = 'ledger: insufficient funds', DETAIL = p.account_id;
          END IF;
          RAISE EXCEPTION USING ERRCODE = 'PB011', MESSAGE = 'ledger: tenant account short', DETAIL = p.account_id;
        END IF;
      END LOOP;
      INSERT INTO ledger_entries (transaction_id, account_id, amount, created_at)
        SELECT v_id, e.p->>'account_id', (e.p->>'amount')::bigint, v_created_at FROM jsonb_array_elements(w->'postings') AS e(p);
      RETURN 'ok';
    END `,
};
