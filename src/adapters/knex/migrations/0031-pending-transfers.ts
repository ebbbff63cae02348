import type { Knex } from 'knex';
import { ledgerAccountHolds } from '../schema/functions/ledger-account-holds.js';
import { createStatement } from '../schema/functions/sql-function.js';

/**
 * Pending transfers: money held on a ledger account (identified as the ledger identifies it:
 * `account_id`, with its tenant, kind and user) until it is captured, voided or lapses at
 * `expires_at`. What is captured never exceeds what was held. The partial indexes serve what
 * runs often: the sum an account's pending transfers hold, and the lapsed ones to record.
 * A debit of a user's account then leaves at least what is held (`pbw_ledger_account_holds`).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('pending_transfers', (t) => {
    t.text('id').primary();
    t.text('tenant_id').notNullable();
    t.text('account_id').notNullable().references('id').inTable('ledger_accounts');
    t.text('account_kind').notNullable();
    t.text('user_id').nullable();
    t.integer('shard').nullable();
    t.text('owner_kind').notNullable();
    t.text('owner_id').notNullable();
    t.text('reference').notNullable();
    t.bigInteger('amount').notNullable();
    t.specificType('currency', 'char(3)').notNullable();
    t.bigInteger('captured').notNullable().defaultTo(0);
    t.text('status').notNullable();
    t.timestamp('expires_at', { useTz: true }).notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable();
    t.timestamp('resolved_at', { useTz: true }).nullable();
  });
  await knex.raw(`ALTER TABLE pending_transfers ADD CONSTRAINT pending_transfers_amounts
    CHECK (amount > 0 AND captured >= 0 AND captured <= amount)`);
  await knex.raw(`ALTER TABLE pending_transfers ADD CONSTRAINT pending_transfers_status
    CHECK (status IN ('PENDING', 'CAPTURED', 'VOIDED', 'EXPIRED'))`);
  await knex.raw(`CREATE INDEX pending_transfers_held ON pending_transfers (account_id, expires_at)
    INCLUDE (amount, captured) WHERE status = 'PENDING'`);
  await knex.raw(`CREATE INDEX pending_transfers_due ON pending_transfers (expires_at) WHERE status = 'PENDING'`);
  await knex.raw(createStatement(ledgerAccountHolds));
  await knex.raw(`CREATE TRIGGER ledger_accounts_respect_holds BEFORE UPDATE OF balance ON ledger_accounts
    FOR EACH ROW WHEN (NEW.balance < OLD.balance AND OLD.kind = 'USER') EXECUTE FUNCTION pbw_ledger_account_holds()`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP TRIGGER IF EXISTS ledger_accounts_respect_holds ON ledger_accounts');
  await knex.raw('DROP FUNCTION IF EXISTS pbw_ledger_account_holds()');
  await knex.schema.dropTableIfExists('pending_transfers');
}
