import type { SqlFunction } from './sql-function.js';

/**
 * A debit of a user's account leaves at least what its pending transfers hold
 * (`ledger_accounts_respect_holds`, 0031): the trigger runs under the row lock the debit takes,
 * so a payment or transfer cannot spend held money, whichever write path (one write or a batch)
 * made it. A capture lowers what its transfer holds before it debits the account, so it always
 * passes. Refused as a checked debit that found too little (PB010).
 */
export const ledgerAccountHolds: SqlFunction = {
  signature: 'pbw_ledger_account_holds()',
  parameters: '',
  returns: 'trigger',
  language: 'plpgsql',
  body: `
    BEGIN
      -- Below zero is the CHECK's to refuse (ledger_accounts_never_negative).
      IF NEW.balance >= 0 AND NEW.balance < (SELECT COALESCE(SUM(amount - captured), 0) FROM pending_transfers
          WHERE account_id = NEW.id AND status = 'PENDING' AND expires_at > now()) THEN
        RAISE EXCEPTION USING ERRCODE = 'PB010', MESSAGE = 'ledger: insufficient funds (held)', DETAIL = NEW.id;
      END IF;
      RETURN NEW;
    END `,
};
