import type { Knex } from 'knex';
import { agentAccountSpendable } from '../schema/functions/agent-account-spendable.js';
import { agentHoldCovered } from '../schema/functions/agent-hold-covered.js';
import { createStatement } from '../schema/functions/sql-function.js';

/**
 * Bookings paid from the agent's account (CONTRACT §6.4), in the ledger of §2. Agents' accounts
 * live in a reserved book of the ledger (`tenant_id = 'booking'`, never a real tenant): AGENT
 * (one per agent, `user_id` the agent id, with its billing mode and credit limit on the row),
 * OPERATOR_PAYABLE (one per operator, `user_id` its code), REVENUE (the platform's, sharded like
 * settlement accounts) and FUNDING (money agents paid in). An AGENT account may go below zero:
 * down to minus its credit limit when prepaid (a CHECK on the row), without limit when invoiced.
 * Bookings record their own transaction types (BOOKING, ORDER_REFUND, FEE, FUNDING, ADJUSTMENT).
 * Triggers keep a prepaid agent's spendable (balance + credit limit − held) from going below zero
 * whatever writes the row: a hold (a pending transfer owned by the order) and a debit of the
 * account are each decided under the account's row lock.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`ALTER TABLE ledger_accounts
    ADD COLUMN billing_mode text NULL,
    ADD COLUMN credit_limit bigint NOT NULL DEFAULT 0,
    ADD COLUMN low_balance_alert bigint NULL`);
  await knex.raw('ALTER TABLE ledger_accounts DROP CONSTRAINT ledger_accounts_kind_check');
  await knex.raw(`ALTER TABLE ledger_accounts ADD CONSTRAINT ledger_accounts_kind_check
    CHECK (kind IN ('USER', 'FUNDING', 'SETTLEMENT', 'AGENT', 'OPERATOR_PAYABLE', 'REVENUE'))`);
  await knex.raw('ALTER TABLE ledger_accounts DROP CONSTRAINT ledger_accounts_never_negative');
  await knex.raw(`ALTER TABLE ledger_accounts ADD CONSTRAINT ledger_accounts_never_negative
    CHECK (kind IN ('FUNDING', 'AGENT') OR balance >= 0)`);
  await knex.raw('ALTER TABLE ledger_accounts DROP CONSTRAINT ledger_accounts_user_iff_user_kind');
  await knex.raw(`ALTER TABLE ledger_accounts ADD CONSTRAINT ledger_accounts_user_iff_user_kind
    CHECK ((kind IN ('USER', 'AGENT', 'OPERATOR_PAYABLE')) = (user_id IS NOT NULL))`);
  await knex.raw(`ALTER TABLE ledger_accounts ADD CONSTRAINT ledger_accounts_agent_billing CHECK (
    (billing_mode IS NULL OR (kind = 'AGENT' AND billing_mode IN ('prepaid', 'invoice')))
    AND credit_limit >= 0
    AND (low_balance_alert IS NULL OR kind = 'AGENT'))`);
  // A prepaid agent's balance never below minus its credit limit, whoever writes the row.
  await knex.raw(`ALTER TABLE ledger_accounts ADD CONSTRAINT ledger_accounts_prepaid_floor
    CHECK (billing_mode IS DISTINCT FROM 'prepaid' OR balance >= -credit_limit)`);

  await knex.raw('ALTER TABLE ledger_transactions DROP CONSTRAINT ledger_transactions_type_check');
  await knex.raw(`ALTER TABLE ledger_transactions ADD CONSTRAINT ledger_transactions_type_check
    CHECK (type IN ('TOP_UP', 'PAYMENT', 'TRANSFER', 'REFUND', 'FUNDING', 'BOOKING', 'ORDER_REFUND', 'FEE', 'ADJUSTMENT'))`);

  // An agent's statement: its entries in time order, from an index range.
  await knex.raw('CREATE INDEX ledger_entries_account_time ON ledger_entries (account_id, created_at, transaction_id) INCLUDE (amount)');
  // The pending transfer of an order, found by its owner.
  await knex.raw('CREATE INDEX pending_transfers_owner ON pending_transfers (owner_kind, owner_id)');

  // What the operator's share of a sale is: the base fare, kept with the quote and the order.
  await knex.raw('ALTER TABLE quotes ADD COLUMN base_fare_amount bigint NULL');
  await knex.raw('ALTER TABLE orders ADD COLUMN base_fare_amount bigint NULL');

  await knex.raw(createStatement(agentHoldCovered));
  await knex.raw(`CREATE TRIGGER pending_transfers_agent_covered BEFORE INSERT ON pending_transfers
    FOR EACH ROW WHEN (NEW.account_kind = 'AGENT') EXECUTE FUNCTION pbw_agent_hold_covered()`);
  await knex.raw(createStatement(agentAccountSpendable));
  await knex.raw(`CREATE TRIGGER ledger_accounts_agent_spendable BEFORE UPDATE OF balance ON ledger_accounts
    FOR EACH ROW WHEN (NEW.balance < OLD.balance AND OLD.kind = 'AGENT' AND OLD.billing_mode = 'prepaid')
    EXECUTE FUNCTION pbw_agent_account_spendable()`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP TRIGGER IF EXISTS ledger_accounts_agent_spendable ON ledger_accounts');
  await knex.raw('DROP TRIGGER IF EXISTS pending_transfers_agent_covered ON pending_transfers');
  await knex.raw('DROP FUNCTION IF EXISTS pbw_agent_account_spendable()');
  await knex.raw('DROP FUNCTION IF EXISTS pbw_agent_hold_covered()');
  await knex.raw('ALTER TABLE orders DROP COLUMN IF EXISTS base_fare_amount');
  await knex.raw('ALTER TABLE quotes DROP COLUMN IF EXISTS base_fare_amount');
  await knex.raw('DROP INDEX IF EXISTS pending_transfers_owner');
  await knex.raw('DROP INDEX IF EXISTS ledger_entries_account_time');
  await knex.raw(`DELETE FROM ledger_entries WHERE transaction_id IN (SELECT id FROM ledger_transactions WHERE tenant_id = 'booking')`);
  await knex.raw(`DELETE FROM pending_transfers WHERE tenant_id = 'booking'`);
  await knex.raw(`DELETE FROM ledger_transactions WHERE tenant_id = 'booking'`);
  await knex.raw(`DELETE FROM ledger_accounts WHERE tenant_id = 'booking'`);
  await knex.raw('ALTER TABLE ledger_transactions DROP CONSTRAINT ledger_transactions_type_check');
  await knex.raw(`ALTER TABLE ledger_transactions ADD CONSTRAINT ledger_transactions_type_check
    CHECK (type IN ('TOP_UP', 'PAYMENT', 'TRANSFER', 'REFUND'))`);
  await knex.raw('ALTER TABLE ledger_accounts DROP CONSTRAINT ledger_accounts_prepaid_floor');
  await knex.raw('ALTER TABLE ledger_accounts DROP CONSTRAINT ledger_accounts_agent_billing');
  await knex.raw('ALTER TABLE ledger_accounts DROP CONSTRAINT ledger_accounts_user_iff_user_kind');
  await knex.raw(`ALTER TABLE ledger_accounts ADD CONSTRAINT ledger_accounts_user_iff_user_kind
    CHECK ((kind = 'USER') = (user_id IS NOT NULL))`);
  await knex.raw('ALTER TABLE ledger_accounts DROP CONSTRAINT ledger_accounts_never_negative');
  await knex.raw(`ALTER TABLE ledger_accounts ADD CONSTRAINT ledger_accounts_never_negative CHECK (kind = 'FUNDING' OR balance >= 0)`);
  await knex.raw('ALTER TABLE ledger_accounts DROP CONSTRAINT ledger_accounts_kind_check');
  await knex.raw(`ALTER TABLE ledger_accounts ADD CONSTRAINT ledger_accounts_kind_check CHECK (kind IN ('USER', 'FUNDING', 'SETTLEMENT'))`);
  await knex.raw('ALTER TABLE ledger_accounts DROP COLUMN low_balance_alert, DROP COLUMN credit_limit, DROP COLUMN billing_mode');
}
