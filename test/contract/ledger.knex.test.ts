import { expect } from 'chai';
import { KnexLedger } from '../../src/adapters/knex/ledger.knex.js';
import { databaseKind, testDatabase } from '../support/database.js';
import { assertLedgerBalanced } from '../support/ledger-balance.js';
import { ledgerContract } from 'partner-booking-wallet/testing';
import { ledgerTenant, machineInitiator, testId } from '../support/ledger-builders.js';

ledgerContract(
  'PostgreSQL (Knex)',
  async () => {
    const ledger = new KnexLedger((await testDatabase()).knex);
    return { ledger, reader: ledger };
  },
  {
    concurrent: async () => (await databaseKind()) === 'postgres',
    check: async () => assertLedgerBalanced((await testDatabase()).knex),
  },
);

describe('ledger schema: what the database itself refuses', () => {
  it('when entries that do not sum to zero are committed, then the commit fails and nothing is kept', async () => {
    const { knex } = await testDatabase();
    const ledger = new KnexLedger(knex);
    const t = ledgerTenant();
    const u = t.newUser();
    const top = await ledger.topUp({
      id: testId('txn'),
      tenantId: t.tenantId,
      userId: u,
      amount: { amount: 10, currency: 'THB' },
      reference: 'r',
      initiatedBy: machineInitiator(t),
      idempotency: null,
      createdAt: new Date(),
    });
    const sneaky = testId('txn');
    const attempt = knex.transaction(async (trx) => {
      await trx('ledger_transactions').insert({
        id: sneaky,
        tenant_id: t.tenantId,
        type: 'TOP_UP',
        amount: 5,
        currency: 'THB',
        user_id: u,
        initiator_kind: 'machine',
        initiator_client_id: t.clientId,
        created_at: new Date(),
      });
      await trx('ledger_entries').insert({
        transaction_id: sneaky,
        account_id: `${t.tenantId}:user:${u}`,
        amount: 5,
        created_at: new Date(),
      });
    });
    let failed = false;
    await attempt.catch(() => {
      failed = true;
    });
    expect(failed).to.equal(true);
    expect(await knex('ledger_transactions').where({ id: sneaky }).first()).to.equal(undefined);
    expect(await ledger.balanceOf(t.tenantId, u)).to.equal(10);
    expect(top.id).to.be.a('string');
  });

  it('when a user balance would go below zero by any write, then the CHECK refuses it', async () => {
    const { knex } = await testDatabase();
    const ledger = new KnexLedger(knex);
    const t = ledgerTenant();
    const u = t.newUser();
    await ledger.topUp({
      id: testId('txn'),
      tenantId: t.tenantId,
      userId: u,
      amount: { amount: 10, currency: 'THB' },
      reference: 'r',
      initiatedBy: machineInitiator(t),
      idempotency: null,
      createdAt: new Date(),
    });
    let code = '';
    await knex('ledger_accounts')
      .where({ id: `${t.tenantId}:user:${u}` })
      .update({ balance: -1 })
      .catch((e: { code?: string }) => {
        code = e.code ?? '';
      });
    expect(code).to.equal('23514');
  });
});
