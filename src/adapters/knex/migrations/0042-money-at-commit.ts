import type { Knex } from 'knex';
import { agentAccountOpen } from '../schema/functions/agent-account-open.js';
import { agentHoldCovered } from '../schema/functions/agent-hold-covered.js';
import { ledgerWriteAtCommit } from '../schema/functions/ledger-write-at-commit.js';
import { createStatement } from '../schema/functions/sql-function.js';

/**
 * An agent's money decided at the commit of its order's transaction (ADR 0015). A hold's cover
 * was checked under the agent account's row lock as the hold went in, and a sale written under it
 * as the order was confirmed, so the lock was held across every statement that followed and the
 * round trips between them: one agent's orders went one at a time at the speed of those round
 * trips. Now:
 * - the account a hold names is created, when missing, as the hold goes in
 *   (`pending_transfers_agent_account`), and its cover is checked by a constraint trigger deferred
 *   to the commit (`pending_transfers_agent_covered`), which takes the lock then;
 * - a sale is queued in `ledger_writes_at_commit` and written at the commit by the ledger's one
 *   write (`ledger_writes_at_commit_apply`). The table is UNLOGGED: a row never outlives its
 *   transaction, so it needs no WAL, and a crash that empties it loses nothing.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw('DROP TRIGGER IF EXISTS pending_transfers_agent_covered ON pending_transfers');
  await knex.raw(createStatement(agentAccountOpen));
  await knex.raw(createStatement(agentHoldCovered));
  await knex.raw(`CREATE TRIGGER pending_transfers_agent_account BEFORE INSERT ON pending_transfers
    FOR EACH ROW WHEN (NEW.account_kind = 'AGENT') EXECUTE FUNCTION pbw_agent_account_open()`);
  await knex.raw(`CREATE CONSTRAINT TRIGGER pending_transfers_agent_covered AFTER INSERT ON pending_transfers
    DEFERRABLE INITIALLY DEFERRED
    FOR EACH ROW WHEN (NEW.account_kind = 'AGENT') EXECUTE FUNCTION pbw_agent_hold_covered()`);

  await knex.raw('CREATE UNLOGGED TABLE ledger_writes_at_commit (id text PRIMARY KEY, record jsonb NOT NULL)');
  await knex.raw(createStatement(ledgerWriteAtCommit));
  await knex.raw(`CREATE CONSTRAINT TRIGGER ledger_writes_at_commit_apply AFTER INSERT ON ledger_writes_at_commit
    DEFERRABLE INITIALLY DEFERRED
    FOR EACH ROW EXECUTE FUNCTION pbw_ledger_write_at_commit()`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP TABLE IF EXISTS ledger_writes_at_commit');
  await knex.raw('DROP FUNCTION IF EXISTS pbw_ledger_write_at_commit()');
  await knex.raw('DROP TRIGGER IF EXISTS pending_transfers_agent_covered ON pending_transfers');
  await knex.raw('DROP TRIGGER IF EXISTS pending_transfers_agent_account ON pending_transfers');
  await knex.raw('DROP FUNCTION IF EXISTS pbw_agent_account_open()');
  // The hold's check as it was: the account created and locked as the hold goes in.
  await knex.raw(`CREATE OR REPLACE FUNCTION pbw_agent_hold_covered() RETURNS trigger LANGUAGE plpgsql AS $pbw$
    DECLARE
      a record;
      held bigint;
    BEGIN
      INSERT INTO ledger_accounts (id, tenant_id, kind, user_id, currency, balance, created_at, billing_mode)
        VALUES (NEW.account_id, NEW.tenant_id, 'AGENT', NEW.user_id, NEW.currency, 0, NEW.created_at, 'invoice')
        ON CONFLICT (id) DO NOTHING;
      SELECT balance, currency, billing_mode, credit_limit INTO a FROM ledger_accounts WHERE id = NEW.account_id FOR UPDATE;
      IF a.currency <> NEW.currency THEN
        RAISE EXCEPTION USING ERRCODE = 'PB020', MESSAGE = 'ledger: account holds another currency', DETAIL = a.currency;
      END IF;
      IF a.billing_mode = 'prepaid' THEN
        SELECT COALESCE(SUM(amount - captured), 0) INTO held FROM pending_transfers
          WHERE account_id = NEW.account_id AND status = 'PENDING' AND expires_at > NEW.created_at;
        IF a.balance + a.credit_limit - held < NEW.amount THEN
          RAISE EXCEPTION USING ERRCODE = 'PB012', MESSAGE = 'ledger: agent spendable short',
            DETAIL = (a.balance + a.credit_limit - held)::text;
        END IF;
      END IF;
      RETURN NEW;
    END $pbw$`);
  await knex.raw(`CREATE TRIGGER pending_transfers_agent_covered BEFORE INSERT ON pending_transfers
    FOR EACH ROW WHEN (NEW.account_kind = 'AGENT') EXECUTE FUNCTION pbw_agent_hold_covered()`);
}
