import type { Knex } from 'knex';

/**
 * `pbw_ledger_write_batch`: many calls of `pbw_ledger_write_attempt` (0022) in one, given as a
 * JSON array of each call's argument list in the same order, answering one row per call (`unit`,
 * its index; `failure`, NULL when written, else as 0022 answers it).
 *
 * A ledger write made alone runs about eight statements (the key's record, the transaction, its
 * event, each account, the entries), and most of their cost is per statement, not per row. When
 * the calls cannot affect one another, the batch is written set-wise instead, in a
 * subtransaction: each of those statements once for all the calls. They cannot when
 * - no call is a refund,
 * - every key comes with its answer, and
 * - an account that a call debits under a check is touched by no other posting of the batch.
 * The other accounts are only credited or debited unchecked, so their sum is what the calls one
 * after another would add, and each check sees what it would have seen alone. If every check
 * passes, the result is the calls' results one after another. If a check fails or a statement
 * raises (a key already stored, a currency that differs, a deadlock), the set-wise write is
 * undone and the calls run one at a time through `pbw_ledger_write_attempt`, exactly as before: a
 * refusal is then that call's alone.
 *
 * Every statement in the WITH runs to its end whether or not the query reads it.
 */
const CALLS = `CREATE FUNCTION pbw_ledger_calls(calls jsonb) RETURNS TABLE (
      n integer, p_keyed boolean,
      i_scope text, i_key text, i_fingerprint text, i_status integer, i_content_type text, i_body text,
      i_headers jsonb, i_claimed_at timestamptz, i_completed_at timestamptz,
      p_id text, p_tenant_id text, p_type text, p_amount bigint, p_currency text, p_user_id text,
      p_counterparty_user_id text, p_reference text, p_description text, p_refund_of text,
      p_initiator_kind text, p_initiator_client_id text, p_initiator_user_id text, p_initiator_amr text[],
      p_initiator_act_sub text, p_idempotency_scope text, p_idempotency_key text, p_created_at timestamptz,
      account_ids text[], kinds text[], user_ids text[], amounts bigint[], checked boolean[], events jsonb)
    LANGUAGE sql STABLE AS $$
      SELECT (c.i - 1)::integer, (a->>0)::boolean,
        a->>1, a->>2, a->>3, (a->>4)::integer, a->>5, a->>6, (a->>7)::jsonb, (a->>8)::timestamptz, (a->>9)::timestamptz,
        a->>10, a->>11, a->>12, (a->>13)::bigint, a->>14, a->>15, a->>16, a->>17, a->>18, a->>19, a->>20, a->>21, a->>22,
        CASE WHEN jsonb_typeof(a->23) = 'array' THEN ARRAY(SELECT jsonb_array_elements_text(a->23)) END,
        a->>24, a->>25, a->>26, (a->>27)::timestamptz,
        ARRAY(SELECT jsonb_array_elements_text(a->28)),
        ARRAY(SELECT jsonb_array_elements_text(a->29)),
        ARRAY(SELECT jsonb_array_elements_text(a->30)),
        ARRAY(SELECT e::bigint FROM jsonb_array_elements_text(a->31) AS e),
        ARRAY(SELECT e::boolean FROM jsonb_array_elements_text(a->32) AS e),
        (a->>33)::jsonb
      FROM jsonb_array_elements(calls) WITH ORDINALITY AS c(a, i)
    $$`;

const BATCH = `CREATE FUNCTION pbw_ledger_write_batch(calls jsonb) RETURNS TABLE (unit integer, failure text)
    LANGUAGE plpgsql AS $$
    DECLARE
      r record;
      independent boolean;
      debits integer;
      debited integer;
      credits integer;
      credited integer;
      events jsonb;
    BEGIN
      BEGIN
        WITH u AS MATERIALIZED (SELECT * FROM pbw_ledger_calls(calls)),
        p AS MATERIALIZED (
          SELECT u.p_id, u.p_tenant_id, u.p_currency, u.p_created_at, x.*
          FROM u, unnest(u.account_ids, u.kinds, u.user_ids, u.amounts, u.checked)
            AS x(account_id, kind, user_id, amount, is_checked)),
        go AS MATERIALIZED (
          SELECT NOT EXISTS (SELECT 1 FROM u WHERE u.p_refund_of IS NOT NULL
              OR (u.p_keyed AND (u.i_status IS NULL OR u.i_content_type IS NULL OR u.i_body IS NULL)))
            AND NOT EXISTS (SELECT 1 FROM p GROUP BY p.account_id HAVING bool_or(p.is_checked) AND count(*) > 1) AS ok),
        recorded AS (
          INSERT INTO idempotency_keys (scope, key, fingerprint, state, status, content_type, body, headers,
              created_at, claimed_at, completed_at)
            SELECT u.i_scope, u.i_key, u.i_fingerprint, 'DONE', u.i_status, u.i_content_type, u.i_body, u.i_headers,
              u.i_claimed_at, u.i_claimed_at, u.i_completed_at
            FROM u, go WHERE go.ok AND u.p_keyed),
        written AS (
          INSERT INTO ledger_transactions (id, tenant_id, type, amount, currency, user_id, counterparty_user_id,
              reference, description, refund_of, initiator_kind, initiator_client_id, initiator_user_id, initiator_amr,
              initiator_act_sub, idempotency_scope, idempotency_key, created_at)
            SELECT u.p_id, u.p_tenant_id, u.p_type, u.p_amount, u.p_currency, u.p_user_id, u.p_counterparty_user_id,
              u.p_reference, u.p_description, u.p_refund_of, u.p_initiator_kind, u.p_initiator_client_id,
              u.p_initiator_user_id, u.p_initiator_amr, u.p_initiator_act_sub, u.p_idempotency_scope,
              u.p_idempotency_key, u.p_created_at
            FROM u, go WHERE go.ok),
        debit AS (
          UPDATE ledger_accounts a SET balance = a.balance + p.amount
            FROM p, go
            WHERE go.ok AND p.is_checked AND a.id = p.account_id AND a.balance >= -p.amount AND a.currency = p.p_currency
            RETURNING 1),
        credit AS (
          INSERT INTO ledger_accounts (id, tenant_id, kind, user_id, currency, balance, created_at)
            SELECT p.account_id, min(p.p_tenant_id), min(p.kind), min(p.user_id), min(p.p_currency), sum(p.amount),
              min(p.p_created_at)
            FROM p, go WHERE go.ok AND NOT p.is_checked
            GROUP BY p.account_id
            ON CONFLICT (id) DO UPDATE SET balance = ledger_accounts.balance + EXCLUDED.balance
              WHERE ledger_accounts.currency = EXCLUDED.currency
            RETURNING 1),
        entered AS (
          INSERT INTO ledger_entries (transaction_id, account_id, amount, created_at)
            SELECT p.p_id, p.account_id, p.amount, p.p_created_at FROM p, go WHERE go.ok)
        SELECT go.ok,
          (SELECT count(*) FROM p WHERE p.is_checked), (SELECT count(*) FROM debit),
          (SELECT count(DISTINCT p.account_id) FROM p WHERE NOT p.is_checked), (SELECT count(*) FROM credit),
          (SELECT jsonb_agg(e.event ORDER BY u.n, e.i) FROM u, jsonb_array_elements(u.events) WITH ORDINALITY AS e(event, i)
            WHERE jsonb_typeof(u.events) = 'array')
          INTO independent, debits, debited, credits, credited, events
          FROM go;
        IF independent THEN
          IF debited <> debits OR credited <> credits THEN
            -- A check failed (too little, another currency): undo everything and go one at a time.
            RAISE EXCEPTION USING ERRCODE = 'PB099', MESSAGE = 'ledger batch: a write was refused';
          END IF;
          IF events IS NOT NULL THEN
            PERFORM pbw_webhook_record(events);
          END IF;
          RETURN QUERY SELECT c.i::integer - 1, NULL::text FROM jsonb_array_elements(calls) WITH ORDINALITY AS c(a, i);
          RETURN;
        END IF;
      EXCEPTION WHEN OTHERS THEN
        -- Undone; each call below answers for itself.
      END;
      FOR r IN SELECT * FROM pbw_ledger_calls(calls) LOOP
        unit := r.n;
        failure := pbw_ledger_write_attempt(r.p_keyed, r.i_scope, r.i_key, r.i_fingerprint, r.i_status,
          r.i_content_type, r.i_body, r.i_headers, r.i_claimed_at, r.i_completed_at, r.p_id, r.p_tenant_id, r.p_type,
          r.p_amount, r.p_currency, r.p_user_id, r.p_counterparty_user_id, r.p_reference, r.p_description,
          r.p_refund_of, r.p_initiator_kind, r.p_initiator_client_id, r.p_initiator_user_id, r.p_initiator_amr,
          r.p_initiator_act_sub, r.p_idempotency_scope, r.p_idempotency_key, r.p_created_at, r.account_ids, r.kinds,
          r.user_ids, r.amounts, r.checked, r.events);
        RETURN NEXT;
      END LOOP;
    END $$`;

export async function up(knex: Knex): Promise<void> {
  await knex.raw(CALLS);
  await knex.raw(BATCH);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP FUNCTION IF EXISTS pbw_ledger_write_batch(jsonb)');
  await knex.raw('DROP FUNCTION IF EXISTS pbw_ledger_calls(jsonb)');
}
