import type { SqlFunction } from './sql-function.js';

/**
 * A hold of an agent's account (a pending transfer of kind AGENT, owned by an order) is covered
 * (`pending_transfers_agent_covered`, 0032): the account is created when missing (invoice, in the
 * hold's currency), then locked, so holds and debits of one account are decided one after the
 * other. A prepaid account's spendable (balance + credit limit − what its unexpired pending
 * transfers hold at the hold's time) must cover the amount, else PB012 with that spendable in
 * DETAIL; an account in another currency is PB020 with its currency in DETAIL. An invoiced
 * account is never refused for its balance.
 */
export const agentHoldCovered: SqlFunction = {
  signature: 'pbw_agent_hold_covered()',
  parameters: '',
  returns: 'trigger',
  language: 'plpgsql',
  body: `
    DECLARE
      a record;
      held bigint;
    BEGIN
      INSERT INTO ledger_accounts (id, tenant_id, kind, user_id, currency, balance, created_at, billing_mode)
        VALUES (NEW.account_id, NEW.tenant_id, 'AGENT', NEW.user_id, NEW.currency, 0, NEW.created_at, 'invoice')
        ON CONFLICT (id) DO NOTHING;
      SELECT balance, currency, billing_mode, credit_limit INTO a FROM ledger_accounts WHERE id = NEW.account_id FOR UPDATE;
      IF a.currency <> NEW.currency THEN
        RAISE EXCEPTION USING ERRCODE = 'PB020', MESSAGE = 'ledger: account holds another currency', DETAIL = a.currency;
      END IF;
      IF a.billing_mode = 'prepaid' THEN
        SELECT COALESCE(SUM(amount - captured), 0) INTO held FROM pending_transfers
          WHERE account_id = NEW.account_id AND status = 'PENDING' AND expires_at > NEW.created_at;
        IF a.balance + a.credit_limit - held < NEW.amount THEN
          RAISE EXCEPTION USING ERRCODE = 'PB012', MESSAGE = 'ledger: agent spendable short',
            DETAIL = (a.balance + a.credit_limit - held)::text;
        END IF;
      END IF;
      RETURN NEW;
    END `,
};
