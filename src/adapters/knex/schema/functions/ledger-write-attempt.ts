import type { SqlFunction } from './sql-function.js';

/**
 * One ledger write (`w`, as `pbw_ledger_write` takes it) with, when `k` is a record, its
 * idempotency key stored done with its answer first (`pbw_idempotency_record`), in a
 * subtransaction that answers its failure instead of raising it: several requests' writes can
 * then share one statement and one commit, one refused (too little money, a key already taken, a
 * deadlock) undoing only its own rows. Returns NULL when written, else the failure as JSON
 * (`code`, `constraint`, `detail`, `message`, as the driver would have reported them).
 */
export const ledgerWriteAttempt: SqlFunction = {
  signature: 'pbw_ledger_write_attempt(jsonb, jsonb)',
  parameters: 'w jsonb, k jsonb',
  returns: 'text',
  language: 'plpgsql',
  body: `
    DECLARE
      f_state text;
      f_constraint text;
      f_detail text;
      f_message text;
    BEGIN
      BEGIN
        IF jsonb_typeof(k) = 'object' THEN
          PERFORM pbw_idempotency_record(k);
        END IF;
        PERFORM pbw_ledger_write(w);
        RETURN NULL;
      EXCEPTION WHEN OTHERS THEN
        GET STACKED DIAGNOSTICS f_state = RETURNED_SQLSTATE, f_constraint = CONSTRAINT_NAME,
          f_detail = PG_EXCEPTION_DETAIL, f_message = MESSAGE_TEXT;
        RETURN json_build_object('code', f_state, 'constraint', NULLIF(f_constraint, ''),
          'detail', NULLIF(f_detail, ''), 'message', f_message)::text;
      END;
    END `,
};
