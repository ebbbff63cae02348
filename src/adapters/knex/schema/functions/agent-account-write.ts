import type { SqlFunction } from './sql-function.js';

/**
 * A write of the booking book that moves an agent's account (a sale, a fee): the ledger's one
 * write (`pbw_ledger_write`, `w` its record), then the agent account's figures after it at `at`
 * (`balance`, `credit_limit`, `held`, `low_balance_alert`, `billing_mode`), in the same round trip, so that the
 * low-balance rule costs no statement of its own while the account's row lock is held.
 */
export const agentAccountWrite: SqlFunction = {
  signature: 'pbw_agent_account_write(jsonb, text, timestamptz)',
  parameters: 'w jsonb, account text, at timestamptz',
  returns: 'jsonb',
  language: 'plpgsql',
  body: `
    DECLARE
      a record;
    BEGIN
      PERFORM pbw_ledger_write(w);
      SELECT l.balance, l.credit_limit, l.low_balance_alert, l.billing_mode,
          (SELECT COALESCE(SUM(p.amount - p.captured), 0) FROM pending_transfers p
            WHERE p.account_id = l.id AND p.status = 'PENDING' AND p.expires_at > at) AS held
        INTO a FROM ledger_accounts l WHERE l.id = account;
      RETURN jsonb_build_object('balance', a.balance, 'credit_limit', a.credit_limit, 'held', a.held,
        'low_balance_alert', a.low_balance_alert, 'billing_mode', a.billing_mode);
    END `,
};
