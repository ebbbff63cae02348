import type { SqlFunction } from './sql-function.js';

/**
 * The body of a double-entry check over `change`, a FROM clause of (transaction_id, amount) rows
 * the statement changed: refused (23514) when any transaction's rows do not sum to zero.
 */
const balanceCheck = (change: string): string => `
    DECLARE
      unbalanced text;
    BEGIN
      SELECT transaction_id INTO unbalanced FROM ${change} GROUP BY transaction_id HAVING SUM(amount) <> 0 LIMIT 1;
      IF unbalanced IS NOT NULL THEN
        RAISE EXCEPTION 'ledger entries of % do not balance', unbalanced USING ERRCODE = '23514';
      END IF;
      RETURN NULL;
    END `;

/**
 * Double entry, checked after each statement that inserts or updates entries, over the rows it
 * changed (transition tables; triggers of 0021), without reading the table: the entries a
 * statement inserts sum to zero per transaction, and an update leaves each transaction's sum as
 * it was. With every transaction balanced before, every transaction is balanced after.
 */
export const ledgerEntriesInsertedBalance: SqlFunction = {
  signature: 'pbw_ledger_entries_inserted_balance()',
  parameters: '',
  returns: 'trigger',
  language: 'plpgsql',
  body: balanceCheck('inserted'),
};

/** The update side of the double-entry check (see `ledgerEntriesInsertedBalance`): what it sets less what it replaced. */
export const ledgerEntriesUpdatedBalance: SqlFunction = {
  signature: 'pbw_ledger_entries_updated_balance()',
  parameters: '',
  returns: 'trigger',
  language: 'plpgsql',
  body: balanceCheck('(SELECT transaction_id, amount FROM updated UNION ALL SELECT transaction_id, -amount FROM replaced) AS change'),
};
