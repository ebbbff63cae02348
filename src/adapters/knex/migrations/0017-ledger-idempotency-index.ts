import type { Knex } from 'knex';

/**
 * The ledger no longer keeps its own idempotency: a retried write is made once-only by the
 * request's idempotency key (`idempotency_keys`), claimed in the same database transaction as
 * the write and committed with its stored answer. New transactions leave `idempotency_scope` and
 * `idempotency_key` empty, so the unique constraint on them decides nothing any more and only
 * costs every write an index entry: it is dropped. The columns stay, with the keys of the transactions
 * recorded before (nothing is lost; `pbw_ledger_write` still takes them as arguments).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw('ALTER TABLE ledger_transactions DROP CONSTRAINT IF EXISTS ledger_transactions_idempotency_unique');
}

/** Rows written since have no key, so the constraint of 0005 can be added again as it was. */
export async function down(knex: Knex): Promise<void> {
  await knex.raw(
    'ALTER TABLE ledger_transactions ADD CONSTRAINT ledger_transactions_idempotency_unique UNIQUE (tenant_id, idempotency_scope, idempotency_key)',
  );
}
