import type { SqlFunction } from './sql-function.js';

/**
 * The account a hold of an agent names exists before the hold goes in
 * (`pending_transfers_agent_account`, 0042): created when missing (invoice, in the hold's
 * currency), without a lock and without waiting for a commit that is moving the account; whether the hold is covered is decided at its commit
 * (`pbw_agent_hold_covered`).
 */
export const agentAccountOpen: SqlFunction = {
  signature: 'pbw_agent_account_open()',
  parameters: '',
  returns: 'trigger',
  language: 'plpgsql',
  body: `
    BEGIN
      -- Looked for first: the insert's conflict check would wait for a commit that is updating the row.
      IF NOT EXISTS (SELECT 1 FROM ledger_accounts WHERE id = NEW.account_id) THEN
        INSERT INTO ledger_accounts (id, tenant_id, kind, user_id, currency, balance, created_at, billing_mode)
          VALUES (NEW.account_id, NEW.tenant_id, 'AGENT', NEW.user_id, NEW.currency, 0, NEW.created_at, 'invoice')
          ON CONFLICT (id) DO NOTHING;
      END IF;
      RETURN NEW;
    END `,
};
