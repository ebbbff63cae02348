import type { SqlFunction } from './sql-function.js';

/**
 * Many calls of `pbw_ledger_write_attempt` in one: `calls` a JSON array of `{write, key}` (`key`
 * null when the write has none), answering one row per call (`unit`, its index; `failure`, NULL
 * when written, else as the attempt answers it).
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
 * undone and the calls run one at a time through `pbw_ledger_write_attempt`: a refusal is then
 * that call's alone.
 *
 * Every statement in the WITH runs to its end whether or not the query reads it.
 */
export const ledgerWriteBatch: SqlFunction = {
  signature: 'pbw_ledger_write_batch(jsonb)',
  parameters: 'calls jsonb',
  returns: 'TABLE (unit integer, failure text)',
  language: 'plpgsql',
  body: `
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
        WITH u AS MATERIALIZED (
          SELECT (c.i - 1)::integer AS n, c.a->'write' AS w,
            CASE WHEN jsonb_typeof(c.a->'key') = 'object' THEN c.a->'key' END AS k,
            c.a->'write'->>'id' AS id, c.a->'write'->>'tenant_id' AS tenant_id, c.a->'write'->>'currency' AS currency,
            (c.a->'write'->>'created_at')::timestamptz AS created_at, c.a->'write'->>'refund_of' AS refund_of,
            CASE WHEN jsonb_typeof(c.a->'write'->'events') = 'array' THEN c.a->'write'->'events' END AS events
          FROM jsonb_array_elements(calls) WITH ORDINALITY AS c(a, i)),
        p AS MATERIALIZED (
          SELECT u.id, u.tenant_id, u.currency, u.created_at, x.p->>'account_id' AS account_id, x.p->>'kind' AS kind,
            x.p->>'user_id' AS user_id, (x.p->>'amount')::bigint AS amount, (x.p->>'checked')::boolean AS is_checked
          FROM u, jsonb_array_elements(u.w->'postings') AS x(p)),
        go AS MATERIALIZED (
          SELECT NOT EXISTS (SELECT 1 FROM u WHERE u.refund_of IS NOT NULL
              OR (u.k IS NOT NULL AND (u.k->>'status' IS NULL OR u.k->>'content_type' IS NULL OR u.k->>'body' IS NULL)))
            AND NOT EXISTS (SELECT 1 FROM p GROUP BY p.account_id HAVING bool_or(p.is_checked) AND count(*) > 1) AS ok),
        recorded AS (
          INSERT INTO idempotency_keys (scope, key, fingerprint, state, status, content_type, body, headers,
              created_at, claimed_at, completed_at)
            SELECT u.k->>'scope', u.k->>'key', u.k->>'fingerprint', 'DONE', (u.k->>'status')::integer,
              u.k->>'content_type', u.k->>'body', CASE WHEN jsonb_typeof(u.k->'headers') = 'object' THEN u.k->'headers' END,
              (u.k->>'claimed_at')::timestamptz, (u.k->>'claimed_at')::timestamptz, (u.k->>'completed_at')::timestamptz
            FROM u, go WHERE go.ok AND u.k IS NOT NULL),
        written AS (
          INSERT INTO ledger_transactions (id, tenant_id, type, amount, currency, user_id, counterparty_user_id,
              reference, description, refund_of, initiator_kind, initiator_client_id, initiator_user_id, initiator_amr,
              initiator_act_sub, created_at)
            SELECT u.id, u.tenant_id, u.w->>'type', (u.w->>'amount')::bigint, u.currency, u.w->>'user_id',
              u.w->>'counterparty_user_id', u.w->>'reference', u.w->>'description', u.refund_of, u.w->>'initiator_kind',
              u.w->>'initiator_client_id', u.w->>'initiator_user_id',
              CASE WHEN jsonb_typeof(u.w->'initiator_amr') = 'array'
                THEN ARRAY(SELECT jsonb_array_elements_text(u.w->'initiator_amr')) END,
              u.w->>'initiator_act_sub', u.created_at
            FROM u, go WHERE go.ok),
        debit AS (
          UPDATE ledger_accounts a SET balance = a.balance + p.amount
            FROM p, go
            WHERE go.ok AND p.is_checked AND a.id = p.account_id AND a.balance >= -p.amount AND a.currency = p.currency
            RETURNING 1),
        credit AS (
          INSERT INTO ledger_accounts (id, tenant_id, kind, user_id, currency, balance, created_at)
            SELECT p.account_id, min(p.tenant_id), min(p.kind), min(p.user_id), min(p.currency), sum(p.amount),
              min(p.created_at)
            FROM p, go WHERE go.ok AND NOT p.is_checked
            GROUP BY p.account_id
            ON CONFLICT (id) DO UPDATE SET balance = ledger_accounts.balance + EXCLUDED.balance
              WHERE ledger_accounts.currency = EXCLUDED.currency
            RETURNING 1),
        entered AS (
          INSERT INTO ledger_entries (transaction_id, account_id, amount, created_at)
            SELECT p.id, p.account_id, p.amount, p.created_at FROM p, go WHERE go.ok)
        SELECT go.ok,
          (SELECT count(*) FROM p WHERE p.is_checked), (SELECT count(*) FROM debit),
          (SELECT count(DISTINCT p.account_id) FROM p WHERE NOT p.is_checked), (SELECT count(*) FROM credit),
          (SELECT jsonb_agg(e.event ORDER BY u.n, e.i) FROM u, jsonb_array_elements(u.events) WITH ORDINALITY AS e(event, i))
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
      FOR r IN SELECT (c.i - 1)::integer AS n, c.a->'write' AS w, c.a->'key' AS k
          FROM jsonb_array_elements(calls) WITH ORDINALITY AS c(a, i) ORDER BY c.i LOOP
        unit := r.n;
        failure := pbw_ledger_write_attempt(r.w, r.k);
        RETURN NEXT;
      END LOOP;
    END `,
};
