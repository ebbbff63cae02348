import { expect } from 'chai';
import type { Knex } from 'knex';
import type { MemoryLedger } from '../../src/adapters/memory/ledger.memory.js';

/**
 * The ledger's invariants, checked over the whole database: every account's balance equals the
 * sum of its entries; every transaction has entries and they sum to zero (two in a tenant's
 * wallet; a sale of the booking book splits between agent, operator and revenue, so at least
 * two there); no account but a funding account or an agent's (a credit line, an invoice) is
 * below zero; every payment's refunded amount equals its refunds.
 */
export async function assertLedgerBalanced(knex: Knex): Promise<void> {
  const drifted = await knex.raw(`
    SELECT a.id, a.balance, COALESCE(SUM(e.amount), 0) AS entries
    FROM ledger_accounts a LEFT JOIN ledger_entries e ON e.account_id = a.id
    GROUP BY a.id, a.balance HAVING a.balance <> COALESCE(SUM(e.amount), 0) LIMIT 5`);
  expect(drifted.rows, 'accounts whose balance differs from the sum of their entries').to.deep.equal([]);
  const unbalanced = await knex.raw(`
    SELECT t.id, COUNT(e.account_id) AS entries, COALESCE(SUM(e.amount), 0) AS total
    FROM ledger_transactions t LEFT JOIN ledger_entries e ON e.transaction_id = t.id
    GROUP BY t.id, t.tenant_id
    HAVING (CASE WHEN t.tenant_id = 'booking' THEN COUNT(e.account_id) < 2 ELSE COUNT(e.account_id) <> 2 END)
      OR COALESCE(SUM(e.amount), 0) <> 0 LIMIT 5`);
  expect(unbalanced.rows, 'transactions whose entries are not two (at least two in the booking book) that sum to zero').to.deep.equal([]);
  const negative = await knex.raw(`SELECT id, balance FROM ledger_accounts WHERE kind NOT IN ('FUNDING', 'AGENT') AND balance < 0 LIMIT 5`);
  expect(negative.rows, 'accounts below zero').to.deep.equal([]);
  const overRefunded = await knex.raw(`
    SELECT p.id FROM ledger_transactions p LEFT JOIN ledger_transactions r ON r.refund_of = p.id
    WHERE p.type = 'PAYMENT' GROUP BY p.id, p.refunded_amount
    HAVING p.refunded_amount <> COALESCE(SUM(r.amount), 0) LIMIT 5`);
  expect(overRefunded.rows, 'payments whose refunded amount differs from their refunds').to.deep.equal([]);
}

/** The same invariants over the in-memory ledger. */
export function assertMemoryLedgerBalanced(ledger: MemoryLedger): void {
  const sums = new Map<string, number>();
  const perTransaction = new Map<string, { n: number; total: number }>();
  for (const e of ledger.entries) {
    sums.set(e.accountId, (sums.get(e.accountId) ?? 0) + e.amount);
    const t = perTransaction.get(e.transactionId) ?? { n: 0, total: 0 };
    perTransaction.set(e.transactionId, { n: t.n + 1, total: t.total + e.amount });
  }
  for (const a of ledger.balances()) {
    expect(a.balance, `balance of ${a.id}`).to.equal(sums.get(a.id) ?? 0);
    if (a.kind !== 'FUNDING') expect(a.balance, `balance of ${a.id}`).to.be.at.least(0);
  }
  const refunded = new Map<string, number>();
  for (const t of ledger.allTransactions()) {
    expect(perTransaction.get(t.id), `entries of ${t.id}`).to.deep.equal({ n: 2, total: 0 });
    if (t.refundOf !== null) refunded.set(t.refundOf, (refunded.get(t.refundOf) ?? 0) + t.amount.amount);
  }
  for (const t of ledger.allTransactions()) {
    if (t.type === 'PAYMENT') expect(t.refundedAmount, `refunded of ${t.id}`).to.equal(refunded.get(t.id) ?? 0);
  }
}
