import type { Knex } from 'knex';

/**
 * Each refusal of `pbw_ledger_write` (0014) gets its own SQLSTATE, in place of one code (PB001)
 * whose message text said which (`short:<KIND>`, `currency:<CUR>`, `refund`) and had to be parsed
 * back. The adapter maps the code to the domain's error; what the error needs besides the code is
 * in the error's DETAIL field, never in its message:
 *
 * | SQLSTATE | refusal                                                       | DETAIL                 |
 * | -------- | ------------------------------------------------------------- | ---------------------- |
 * | PB010    | a checked debit of a user's account found too little          | the account id         |
 * | PB011    | a checked debit of a tenant's own account found too little    | the account id         |
 * | PB020    | an account of the transaction holds another currency          | that account's currency |
 * | PB030    | a refund would take its payment's refunds past the payment    | the payment id         |
 *
 * Everything else is unchanged: the same arguments, the same steps in the same order, and a
 * refusal still aborts the whole statement (nothing of the transaction, its entries or its events
 * is kept).
 */
/** The function of 0014 with its refusals as given: the only lines that differ between up and down. */
const writeFunction = (refusals: {
  short: (i: string) => string;
  currency: string;
  refund: string;
}) => `CREATE OR REPLACE FUNCTION pbw_ledger_write(
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
          ${refusals.refund}
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
            ${refusals.currency}
          END IF;
          ${refusals.short('i')}
        END IF;
      END LOOP;
      INSERT INTO ledger_entries (transaction_id, account_id, amount, created_at)
        SELECT p_id, u.account_id, u.amount, p_created_at FROM unnest(account_ids, amounts) AS u(account_id, amount);
      RETURN 'ok';
    END $$`;

export async function up(knex: Knex): Promise<void> {
  await knex.raw(
    writeFunction({
      refund: `RAISE EXCEPTION USING ERRCODE = 'PB030', MESSAGE = 'ledger: refund exceeds payment', DETAIL = p_refund_of;`,
      currency: `RAISE EXCEPTION USING ERRCODE = 'PB020', MESSAGE = 'ledger: account holds another currency', DETAIL = held;`,
      short: (i) => `IF kinds[${i}] = 'USER' THEN
            RAISE EXCEPTION USING ERRCODE = 'PB010', MESSAGE = 'ledger: insufficient funds', DETAIL = account_ids[${i}];
          END IF;
          RAISE EXCEPTION USING ERRCODE = 'PB011', MESSAGE = 'ledger: tenant account short', DETAIL = account_ids[${i}];`,
    }),
  );
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(
    writeFunction({
      refund: `RAISE EXCEPTION USING ERRCODE = 'PB001', MESSAGE = 'refund';`,
      currency: `RAISE EXCEPTION USING ERRCODE = 'PB001', MESSAGE = 'currency:' || held;`,
      short: (i) => `RAISE EXCEPTION USING ERRCODE = 'PB001', MESSAGE = 'short:' || kinds[${i}];`,
    }),
  );
}
