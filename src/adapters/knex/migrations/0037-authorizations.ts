import type { Knex } from 'knex';
import { ledgerEntryBalanceAfter } from '../schema/functions/ledger-entry-balance-after.js';
import { createStatement } from '../schema/functions/sql-function.js';

/**
 * Wallet authorizations and balances at an instant.
 * - A capture's PAYMENT names its authorization (`authorization_id`), so what an authorization
 *   had captured by an instant is a lookup by that index.
 * - Each entry keeps its account's balance after it (`balance_after`, filled by a trigger) and
 *   an order of application (`seq`); `(account_id, created_at, seq)` answers a balance at any
 *   instant with one index probe and streams a statement in order. Existing entries are filled
 *   by a running sum.
 * - Pending transfers are listed by tenant or by account, newest first, and found by account and
 *   creation time for what they held at an instant.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw('ALTER TABLE ledger_transactions ADD COLUMN authorization_id text NULL REFERENCES pending_transfers (id)');
  await knex.raw(`CREATE INDEX ledger_transactions_authorization ON ledger_transactions (authorization_id, created_at)
    INCLUDE (amount) WHERE authorization_id IS NOT NULL`);
  await knex.raw(`ALTER TABLE ledger_transactions DROP CONSTRAINT ledger_transactions_shape`);
  await knex.raw(`ALTER TABLE ledger_transactions ADD CONSTRAINT ledger_transactions_shape CHECK (
    amount > 0
    AND refunded_amount >= 0 AND refunded_amount <= amount
    AND (type = 'PAYMENT' OR refunded_amount = 0)
    AND ((type = 'REFUND') = (refund_of IS NOT NULL))
    AND ((type = 'TRANSFER') = (counterparty_user_id IS NOT NULL))
    AND (counterparty_user_id IS NULL OR counterparty_user_id <> user_id)
    AND (authorization_id IS NULL OR type = 'PAYMENT')
    AND ((idempotency_scope IS NULL) = (idempotency_key IS NULL)))`);

  await knex.raw('ALTER TABLE ledger_entries ADD COLUMN seq bigint GENERATED ALWAYS AS IDENTITY');
  await knex.raw('ALTER TABLE ledger_entries ADD COLUMN balance_after bigint NULL');
  await knex.raw(`UPDATE ledger_entries e SET balance_after = r.running FROM (
      SELECT transaction_id, account_id,
        SUM(amount) OVER (PARTITION BY account_id ORDER BY created_at, seq) AS running
      FROM ledger_entries) r
    WHERE e.transaction_id = r.transaction_id AND e.account_id = r.account_id`);
  await knex.raw('ALTER TABLE ledger_entries ALTER COLUMN balance_after SET NOT NULL');
  await knex.raw(`CREATE INDEX ledger_entries_account_at ON ledger_entries (account_id, created_at, seq)
    INCLUDE (amount, balance_after)`);
  await knex.raw(createStatement(ledgerEntryBalanceAfter));
  await knex.raw(`CREATE TRIGGER ledger_entries_balance_after BEFORE INSERT ON ledger_entries
    FOR EACH ROW EXECUTE FUNCTION pbw_ledger_entry_balance_after()`);

  await knex.raw('CREATE INDEX pending_transfers_account_listing ON pending_transfers (account_id, created_at, id)');
  await knex.raw('CREATE INDEX pending_transfers_tenant_listing ON pending_transfers (tenant_id, owner_kind, created_at, id)');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP INDEX IF EXISTS pending_transfers_tenant_listing');
  await knex.raw('DROP INDEX IF EXISTS pending_transfers_account_listing');
  await knex.raw('DROP TRIGGER IF EXISTS ledger_entries_balance_after ON ledger_entries');
  await knex.raw('DROP FUNCTION IF EXISTS pbw_ledger_entry_balance_after()');
  await knex.raw('DROP INDEX IF EXISTS ledger_entries_account_at');
  await knex.raw('ALTER TABLE ledger_entries DROP COLUMN balance_after, DROP COLUMN seq');
  await knex.raw('ALTER TABLE ledger_transactions DROP COLUMN authorization_id');
}
