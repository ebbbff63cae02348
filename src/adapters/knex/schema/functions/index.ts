import type { Knex } from 'knex';
import { agentAccountSpendable } from './agent-account-spendable.js';
import { agentAccountOpen } from './agent-account-open.js';
import { agentHoldCovered } from './agent-hold-covered.js';
import { idempotencyRecord } from './idempotency-record.js';
import { ledgerAccountHolds } from './ledger-account-holds.js';
import { ledgerEntryBalanceAfter } from './ledger-entry-balance-after.js';
import { ledgerEntriesInsertedBalance, ledgerEntriesUpdatedBalance } from './ledger-entries-balance.js';
import { ledgerWrite } from './ledger-write.js';
import { ledgerWriteAttempt } from './ledger-write-attempt.js';
import { ledgerWriteAtCommit } from './ledger-write-at-commit.js';
import { ledgerWriteBatch } from './ledger-write-batch.js';
import { notifyIdentity } from './notify-identity.js';
import { notifyTokenRevoked } from './notify-token-revoked.js';
import { orderPlace } from './order-place.js';
import { securityEventsAppendOnly } from './security-events-append-only.js';
import { createStatement, type SqlFunction } from './sql-function.js';
import { webhookRecord } from './webhook-record.js';

/** Every function of the schema, as currently defined (one file each). */
export const FUNCTIONS: readonly SqlFunction[] = [
  notifyIdentity,
  notifyTokenRevoked,
  securityEventsAppendOnly,
  ledgerEntriesInsertedBalance,
  ledgerEntriesUpdatedBalance,
  webhookRecord,
  idempotencyRecord,
  ledgerWrite,
  ledgerWriteAttempt,
  ledgerWriteBatch,
  ledgerAccountHolds,
  ledgerEntryBalanceAfter,
  agentAccountOpen,
  agentHoldCovered,
  agentAccountSpendable,
  ledgerWriteAtCommit,
  orderPlace,
];

/**
 * Functions the migrations made that no file defines any more (an older signature, or a function
 * gone), dropped when found. Migrations' `down` that recreated them are history.
 */
export const OBSOLETE: readonly string[] = [
  'pbw_ledger_entries_balanced()',
  'pbw_ledger_calls(jsonb)',
  'pbw_agent_account_write(jsonb, text, timestamptz)',
  'pbw_ledger_write_attempt(boolean, text, text, text, integer, text, text, jsonb, timestamptz, timestamptz, text, text, text, bigint, text, text, text, text, text, text, text, text, text, text[], text, text, text, timestamptz, text[], text[], text[], bigint[], boolean[], jsonb)',
  'pbw_ledger_write(text, text, text, bigint, text, text, text, text, text, text, text, text, text, text[], text, text, text, timestamptz, text[], text[], text[], bigint[], boolean[], jsonb)',
  'pbw_idempotency_record(text, text, text, integer, text, text, jsonb, timestamptz, timestamptz)',
];

/**
 * Brings the schema's functions to their definitions here, in one transaction, after the
 * migrations: drops the obsolete ones, creates what is missing, and replaces a function whose
 * stored body differs (a function whose result type changed is dropped first, as PostgreSQL
 * cannot replace it; a trigger's function is always replaced in place). A function already as
 * written is left alone, so starting another instance changes nothing. Idempotent.
 */
export async function applyFunctions(knex: Knex): Promise<void> {
  await knex.transaction(async (trx) => {
    for (const signature of OBSOLETE) await trx.raw(`DROP FUNCTION IF EXISTS ${signature}`);
    for (const f of FUNCTIONS) {
      const found = (
        await trx.raw(
          `SELECT p.prosrc AS body, pg_get_function_result(p.oid) AS returns FROM pg_proc p
           WHERE p.oid = to_regprocedure(?)`,
          [f.signature],
        )
      ).rows as Array<{ body: string; returns: string }>;
      const current = found[0];
      if (current !== undefined && current.body === f.body) continue;
      if (current !== undefined && f.returns !== 'trigger' && normalized(current.returns) !== normalized(f.returns))
        await trx.raw(`DROP FUNCTION ${f.signature}`);
      await trx.raw(createStatement(f));
    }
  });
}

const normalized = (type: string): string =>
  type
    .toLowerCase()
    .replace(/\s+/g, ' ')
    .replace(/\s*([(),])\s*/g, '$1')
    .trim();
