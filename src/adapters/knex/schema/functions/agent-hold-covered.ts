import type { SqlFunction } from './sql-function.js';

/**
 * A hold of an agent's account (a pending transfer of kind AGENT, owned by an order) is covered
 * (`pending_transfers_agent_covered`, a constraint trigger deferred to the commit, 0042): the
 * account is locked, so holds and debits of one account are decided one after the other, and its
 * lock is held only while the hold's transaction commits. The lock is FOR NO KEY UPDATE, the one
 * the account's writes take: the key share each hold's reference to the account took as it went
 * in does not block it (FOR UPDATE there would deadlock two holds committing at once). A prepaid account's spendable (balance
 * + credit limit − what its other unexpired pending transfers hold at the hold's time) must cover
 * the amount, else PB012 with that spendable and the currency in DETAIL (`500 THB`); an account
 * in another currency is PB020 with its currency and the hold's in DETAIL (`EUR THB`). An
 * invoiced account is never refused for its balance; a hold its own transaction has captured or
 * voided since is no longer to cover.
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
      SELECT balance, currency, billing_mode, credit_limit INTO a FROM ledger_accounts WHERE id = NEW.account_id FOR NO KEY UPDATE;
      IF a.currency <> NEW.currency THEN
        RAISE EXCEPTION USING ERRCODE = 'PB020', MESSAGE = 'ledger: account holds another currency',
          DETAIL = rtrim(a.currency) || ' ' || rtrim(NEW.currency);
      END IF;
      IF a.billing_mode = 'prepaid' AND EXISTS (SELECT 1 FROM pending_transfers WHERE id = NEW.id AND status = 'PENDING') THEN
        SELECT COALESCE(SUM(amount - captured), 0) INTO held FROM pending_transfers
          WHERE account_id = NEW.account_id AND status = 'PENDING' AND expires_at > NEW.created_at AND id <> NEW.id;
        IF a.balance + a.credit_limit - held < NEW.amount THEN
          RAISE EXCEPTION USING ERRCODE = 'PB012', MESSAGE = 'ledger: agent spendable short',
            DETAIL = (a.balance + a.credit_limit - held)::text || ' ' || rtrim(a.currency);
        END IF;
      END IF;
      RETURN NULL;
    END `,
};
