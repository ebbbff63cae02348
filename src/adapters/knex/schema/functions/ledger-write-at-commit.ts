import type { SqlFunction } from './sql-function.js';

/**
 * A ledger write deferred to its transaction's commit (`ledger_writes_at_commit_apply`, a
 * constraint trigger deferred to the commit, 0042): the row queued in `ledger_writes_at_commit`
 * is taken out and its record written by the ledger's one write (`pbw_ledger_write`). The
 * accounts' row locks that write takes are then held only while the transaction commits, not
 * across the statements that follow the queueing; a refusal (PB012 and the rest) fails the
 * commit, and nothing of the transaction is kept.
 */
export const ledgerWriteAtCommit: SqlFunction = {
  signature: 'pbw_ledger_write_at_commit()',
  parameters: '',
  returns: 'trigger',
  language: 'plpgsql',
  body: `
    BEGIN
      DELETE FROM ledger_writes_at_commit WHERE id = NEW.id;
      PERFORM pbw_ledger_write(NEW.record);
      RETURN NULL;
    END `,
};
