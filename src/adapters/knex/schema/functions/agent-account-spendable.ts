import type { SqlFunction } from './sql-function.js';

/**
 * A debit of a prepaid agent's account leaves its spendable (balance + credit limit − what its
 * unexpired pending transfers hold) at zero or more (`ledger_accounts_agent_spendable`, 0032):
 * the trigger runs under the row lock the debit takes, so concurrent bookings never overspend,
 * whichever write made the debit. A capture lowers what its transfer holds before it debits the
 * account, so a covered hold is always captured. Refused with PB012, the spendable before the
 * debit and the currency in DETAIL (`500 THB`).
 */
export const agentAccountSpendable: SqlFunction = {
  signature: 'pbw_agent_account_spendable()',
  parameters: '',
  returns: 'trigger',
  language: 'plpgsql',
  body: `
    DECLARE
      held bigint;
    BEGIN
      SELECT COALESCE(SUM(amount - captured), 0) INTO held FROM pending_transfers
        WHERE account_id = NEW.id AND status = 'PENDING' AND expires_at > now();
      IF NEW.balance + NEW.credit_limit - held < 0 THEN
        RAISE EXCEPTION USING ERRCODE = 'PB012', MESSAGE = 'ledger: agent spendable short',
          DETAIL = (OLD.balance + OLD.credit_limit - held)::text || ' ' || rtrim(NEW.currency);
      END IF;
      RETURN NEW;
    END `,
};
