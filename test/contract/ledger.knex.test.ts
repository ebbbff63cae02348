import { expect } from 'chai';
import { KnexIdempotencyStore } from '../../src/adapters/knex/idempotency.knex.js';
import { KnexLedger } from '../../src/adapters/knex/ledger.knex.js';
import type { UnitOfWork } from '../../src/domain/shared/idempotency.port.js';
import { transactionScope } from '../../src/domain/wallet/scope.js';
import { databaseKind, testDatabase } from '../support/database.js';
import { assertLedgerBalanced } from '../support/ledger-balance.js';
import { ledgerContract } from 'partner-booking-wallet/testing';
import { ledgerTenant, machineInitiator, testId, type LedgerTenant } from '../support/ledger-builders.js';

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

/** A top-up of 10 THB to `u`, made by the tenant's backend. */
const topUpTen = (ledger: KnexLedger, t: LedgerTenant, u: string) =>
  ledger.topUp({
    id: testId('txn'),
    tenantId: t.tenantId,
    userId: u,
    amount: { amount: 10, currency: 'THB' },
    reference: 'r',
    initiatedBy: machineInitiator(t),
    idempotency: null,
    createdAt: new Date(),
  });

describe('ledger schema: what the database itself refuses', () => {
  it('when entries that do not sum to zero are committed, then the commit fails and nothing is kept', async () => {
    const { knex } = await testDatabase();
    const ledger = new KnexLedger(knex);
    const t = ledgerTenant();
    const u = t.newUser();
    const top = await topUpTen(ledger, t, u);
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
    await topUpTen(ledger, t, u);
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

describe('ledger writes under an idempotency claim (PostgreSQL)', () => {
  it('when a top-up is written through the claim’s unit of work, then it commits with the stored response, and a released claim undoes it', async function () {
    const db = await testDatabase();
    if (db.target.kind !== 'postgres') this.skip(); // PGlite holds claims in the process: no unit of work
    const store = new KnexIdempotencyStore(db.knex, { holding: { kind: 'transaction', claims: db.knex } });
    const ledger = new KnexLedger(db.knex);
    const t = ledgerTenant();
    const u = t.newUser();
    const topUp = (unitOfWork: UnitOfWork | undefined) =>
      ledger.topUp({
        id: testId('txn'),
        tenantId: t.tenantId,
        userId: u,
        amount: { amount: 250, currency: 'THB' },
        reference: 'r',
        initiatedBy: machineInitiator(t),
        idempotency: null,
        createdAt: new Date(),
        unitOfWork: unitOfWork ?? null,
      });
    const claim = async () => {
      const c = await store.claim({ scope: `test:${t.tenantId}`, key: testId('txn'), fingerprint: 'f' }, new Date());
      if (c.state !== 'claimed') throw new Error('expected a new claim');
      expect(c.lease.unitOfWork).to.not.equal(undefined);
      return c.lease;
    };

    const failed = await claim();
    const undone = await topUp(failed.unitOfWork);
    expect(await ledger.balanceOf(t.tenantId, u)).to.equal(0); // not committed while the request runs
    await failed.release();
    expect(await ledger.find(transactionScope({ kind: 'machine', tenantId: t.tenantId, clientId: t.clientId }), undone.id)).to.equal(null);
    expect(await ledger.balanceOf(t.tenantId, u)).to.equal(0);

    const done = await claim();
    const kept = await topUp(done.unitOfWork);
    await done.complete({ status: 201, contentType: 'application/json', body: '{}' }, new Date());
    expect(await ledger.balanceOf(t.tenantId, u)).to.equal(250);
    expect((await ledger.find(transactionScope({ kind: 'machine', tenantId: t.tenantId, clientId: t.clientId }), kept.id))?.id).to.equal(
      kept.id,
    );
  });
});
