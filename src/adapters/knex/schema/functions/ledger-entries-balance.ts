import type { SqlFunction } from './sql-function.js';

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
  body: `
    DECLARE
      unbalanced text;
    BEGIN
      SELECT transaction_id INTO unbalanced FROM inserted GROUP BY transaction_id HAVING SUM(amount) <> 0 LIMIT 1;
      IF unbalanced IS NOT NULL THEN
        RAISE EXCEPTION 'ledger entries of % do not balance', unbalanced USING ERRCODE = '23514';
      END IF;
      RETURN NULL;
    END `,
};

/** The update side of the double-entry check (see `ledgerEntriesInsertedBalance`). */
export const ledgerEntriesUpdatedBalance: SqlFunction = {
  signature: 'pbw_ledger_entries_updated_balance()',
  parameters: '',
  returns: 'trigger',
  language: 'plpgsql',
  body: `
    DECLARE
      unbalanced text;
    BEGIN
      SELECT transaction_id INTO unbalanced
        FROM (SELECT transaction_id, amount FROM updated UNION ALL SELECT transaction_id, -amount FROM replaced) AS change
        GROUP BY transaction_id HAVING SUM(amount) <> 0 LIMIT 1;
      IF unbalanced IS NOT NULL THEN
        RAISE EXCEPTION 'ledger entries of % do not balance', unbalanced USING ERRCODE = '23514';
      END IF;
      RETURN NULL;
    END `,
};
