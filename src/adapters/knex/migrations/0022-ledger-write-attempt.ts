import type { Knex } from 'knex';

/**
 * `pbw_ledger_write_attempt`: one ledger write (with, when keyed, its idempotency key stored done
 * with its answer, first) that answers its failure instead of raising it. Several requests' writes
 * can then go in one statement and one commit, each in a subtransaction of its own: one refused
 * (insufficient funds, a key already taken, a deadlock) undoes only its own rows, and the others
 * commit. It returns NULL when written, else the failure as JSON: SQLSTATE, constraint, DETAIL
 * and message, as the driver would have reported them.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`CREATE FUNCTION pbw_ledger_write_attempt(
      p_keyed boolean,
      i_scope text, i_key text, i_fingerprint text, i_status integer, i_content_type text, i_body text,
      i_headers jsonb, i_claimed_at timestamptz, i_completed_at timestamptz,
      p_id text, p_tenant_id text, p_type text, p_amount bigint, p_currency text, p_user_id text,
      p_counterparty_user_id text, p_reference text, p_description text, p_refund_of text,
      p_initiator_kind text, p_initiator_client_id text, p_initiator_user_id text, p_initiator_amr text[],
      p_initiator_act_sub text, p_idempotency_scope text, p_idempotency_key text, p_created_at timestamptz,
      account_ids text[], kinds text[], user_ids text[], amounts bigint[], checked boolean[], events jsonb)
    RETURNS text LANGUAGE plpgsql AS $$
    DECLARE
      f_state text;
      f_constraint text;
      f_detail text;
      f_message text;
    BEGIN
      BEGIN
        IF p_keyed THEN
          PERFORM pbw_idempotency_record(i_scope, i_key, i_fingerprint, i_status, i_content_type, i_body,
            i_headers, i_claimed_at, i_completed_at);
        END IF;
        PERFORM pbw_ledger_write(p_id, p_tenant_id, p_type, p_amount, p_currency, p_user_id,
          p_counterparty_user_id, p_reference, p_description, p_refund_of, p_initiator_kind,
          p_initiator_client_id, p_initiator_user_id, p_initiator_amr, p_initiator_act_sub,
          p_idempotency_scope, p_idempotency_key, p_created_at, account_ids, kinds, user_ids, amounts,
          checked, events);
        RETURN NULL;
      EXCEPTION WHEN OTHERS THEN
        GET STACKED DIAGNOSTICS f_state = RETURNED_SQLSTATE, f_constraint = CONSTRAINT_NAME,
          f_detail = PG_EXCEPTION_DETAIL, f_message = MESSAGE_TEXT;
        RETURN json_build_object('code', f_state, 'constraint', NULLIF(f_constraint, ''),
          'detail', NULLIF(f_detail, ''), 'message', f_message)::text;
      END;
    END $$`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`DROP FUNCTION IF EXISTS pbw_ledger_write_attempt(boolean, text, text, text, integer, text, text, jsonb,
    timestamptz, timestamptz, text, text, text, bigint, text, text, text, text, text, text, text, text, text, text[], text,
    text, text, timestamptz, text[], text[], text[], bigint[], boolean[], jsonb)`);
}
