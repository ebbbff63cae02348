import type { Knex } from 'knex';

/**
 * The wallet's double-entry ledger. Accounts are keyed by tenant and user id as text, so the
 * ledger does not depend on how tenants and users are stored.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('ledger_accounts', (t) => {
    t.text('id').primary();
    t.text('tenant_id').notNullable();
    t.text('kind').notNullable().checkIn(['USER', 'FUNDING', 'SETTLEMENT']);
    t.text('user_id').nullable();
    t.specificType('currency', 'char(3)').notNullable();
    t.bigInteger('balance').notNullable().defaultTo(0);
    t.timestamp('created_at', { useTz: true }).notNullable();
    t.unique(['tenant_id', 'user_id'], { indexName: 'ledger_accounts_tenant_user_unique' });
  });
  // Only the funding account (money that came from outside) may be below zero: the last line of
  // defence behind the conditional debits, enforced whatever writes the row.
  await knex.raw(`ALTER TABLE ledger_accounts ADD CONSTRAINT ledger_accounts_never_negative
    CHECK (kind = 'FUNDING' OR balance >= 0)`);
  await knex.raw(`ALTER TABLE ledger_accounts ADD CONSTRAINT ledger_accounts_user_iff_user_kind
    CHECK ((kind = 'USER') = (user_id IS NOT NULL))`);

  await knex.schema.createTable('ledger_transactions', (t) => {
    t.text('id').primary();
    t.text('tenant_id').notNullable();
    t.text('type').notNullable().checkIn(['TOP_UP', 'PAYMENT', 'TRANSFER', 'REFUND']);
    t.bigInteger('amount').notNullable();
    t.specificType('currency', 'char(3)').notNullable();
    t.text('user_id').notNullable();
    t.text('counterparty_user_id').nullable();
    t.text('reference').nullable();
    t.text('description').nullable();
    t.text('refund_of').nullable().references('id').inTable('ledger_transactions');
    t.bigInteger('refunded_amount').notNullable().defaultTo(0);
    t.text('initiator_kind').notNullable().checkIn(['machine', 'user']);
    t.text('initiator_client_id').notNullable();
    t.text('initiator_user_id').nullable();
    t.specificType('initiator_amr', 'text[]').nullable();
    t.text('initiator_act_sub').nullable();
    t.text('idempotency_scope').nullable();
    t.text('idempotency_key').nullable();
    t.timestamp('created_at', { useTz: true }).notNullable();
    // A retried or taken-over request with the same key can never record a second transaction.
    t.unique(['tenant_id', 'idempotency_scope', 'idempotency_key'], { indexName: 'ledger_transactions_idempotency_unique' });
    t.index(['tenant_id', 'created_at', 'id'], 'ledger_transactions_tenant_listing');
    t.index(['tenant_id', 'user_id', 'created_at', 'id'], 'ledger_transactions_user_listing');
    t.index(['tenant_id', 'type', 'created_at', 'id'], 'ledger_transactions_type_listing');
    t.index(['refund_of'], 'ledger_transactions_refund_of');
  });
  await knex.raw(`CREATE INDEX ledger_transactions_counterparty_listing
    ON ledger_transactions (tenant_id, counterparty_user_id, created_at, id) WHERE counterparty_user_id IS NOT NULL`);
  await knex.raw(`ALTER TABLE ledger_transactions ADD CONSTRAINT ledger_transactions_shape CHECK (
    amount > 0
    AND refunded_amount >= 0 AND refunded_amount <= amount
    AND (type = 'PAYMENT' OR refunded_amount = 0)
    AND ((type = 'REFUND') = (refund_of IS NOT NULL))
    AND ((type = 'TRANSFER') = (counterparty_user_id IS NOT NULL))
    AND (counterparty_user_id IS NULL OR counterparty_user_id <> user_id)
    AND ((idempotency_scope IS NULL) = (idempotency_key IS NULL)))`);

  await knex.schema.createTable('ledger_entries', (t) => {
    t.text('transaction_id').notNullable().references('id').inTable('ledger_transactions');
    t.text('account_id').notNullable().references('id').inTable('ledger_accounts');
    t.bigInteger('amount').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable();
    t.primary(['transaction_id', 'account_id']);
    t.index(['account_id']);
  });
  await knex.raw('ALTER TABLE ledger_entries ADD CONSTRAINT ledger_entries_non_zero CHECK (amount <> 0)');

  // Double entry, checked by the database at commit: the entries of a transaction sum to zero.
  await knex.raw(`CREATE FUNCTION pbw_ledger_entries_balanced() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF (SELECT COALESCE(SUM(amount), 0) FROM ledger_entries WHERE transaction_id = NEW.transaction_id) <> 0 THEN
        RAISE EXCEPTION 'ledger entries of % do not balance', NEW.transaction_id USING ERRCODE = '23514';
      END IF;
      RETURN NULL;
    END $$`);
  await knex.raw(`CREATE CONSTRAINT TRIGGER ledger_entries_balanced AFTER INSERT OR UPDATE ON ledger_entries
    DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION pbw_ledger_entries_balanced()`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('ledger_entries');
  await knex.raw('DROP FUNCTION IF EXISTS pbw_ledger_entries_balanced()');
  await knex.schema.dropTableIfExists('ledger_transactions');
  await knex.schema.dropTableIfExists('ledger_accounts');
}
