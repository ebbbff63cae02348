import type { SqlFunction } from './sql-function.js';

/**
 * Each entry records its account's balance just after it (`balance_after`, 0037), read from the
 * account row its transaction has just changed and still holds locked, whichever write path made
 * it. A balance at an instant is then the `balance_after` of the account's last entry by then,
 * one probe of `ledger_entries_account_at`, however long the account's history; a statement's
 * running balance is read, not summed.
 */
export const ledgerEntryBalanceAfter: SqlFunction = {
  signature: 'pbw_ledger_entry_balance_after()',
  parameters: '',
  returns: 'trigger',
  language: 'plpgsql',
  body: `
    BEGIN
      -- An entry on no account is the foreign key's to refuse, at the end of the statement.
      NEW.balance_after := COALESCE((SELECT balance FROM ledger_accounts WHERE id = NEW.account_id), 0);
      RETURN NEW;
    END `,
};
