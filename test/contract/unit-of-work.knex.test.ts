import { expect } from 'chai';
import { KnexLedger, ledgerWriteBatch } from '../../src/adapters/knex/ledger.knex.js';
import { hold, KnexUnitOfWork } from '../../src/adapters/knex/unit-of-work.knex.js';
import { testDatabase } from '../support/database.js';
import { ledgerTenant, topUpOf } from '../support/ledger-builders.js';

const later = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

describe('units of work on PostgreSQL (and embedded PGlite alike)', () => {
  for (const holdWrites of [true, false]) {
    describe(holdWrites ? 'holding their writes' : 'in a transaction from the start', () => {
      it('when work left behind by an ended unit writes while another unit runs and fails, then that write is its own and stays', async () => {
        const db = await testDatabase();
        const units = new KnexUnitOfWork(db.knex, { holdWrites, batch: ledgerWriteBatch });
        const ledger = new KnexLedger(db.knex);
        const t = ledgerTenant();
        const [early, inside] = [t.newUser(), t.newUser()];
        let leftBehind: Promise<unknown> = Promise.resolve();
        // The first unit ends at once, leaving a write that starts later, inside the second unit's run.
        await units.run(async () => {
          leftBehind = later(30).then(() => topUpOf(ledger, t, early, 70));
        });
        const failed = await units
          .run(async () => {
            await topUpOf(ledger, t, inside, 50);
            await later(80);
            throw new Error('the second unit fails');
          })
          .catch((err: Error) => err.message);
        await leftBehind;
        expect(failed).to.equal('the second unit fails');
        expect(await ledger.balanceOf(t.tenantId, early)).to.equal(70);
        expect(await ledger.balanceOf(t.tenantId, inside)).to.equal(0);
      });

      it('when units run one after another and at once, then each commits its own writes, and a nested unit joins its outer one', async () => {
        const db = await testDatabase();
        const units = new KnexUnitOfWork(db.knex, { holdWrites, batch: ledgerWriteBatch });
        const ledger = new KnexLedger(db.knex);
        const t = ledgerTenant();
        const users = [t.newUser(), t.newUser(), t.newUser()];
        await units.run(() => topUpOf(ledger, t, users[0]!, 10));
        await Promise.all(users.map((u) => units.run(() => topUpOf(ledger, t, u, 5))));
        const nested = await units
          .run(async () => {
            await units.run(() => topUpOf(ledger, t, users[1]!, 100));
            throw new Error('the outer unit fails');
          })
          .catch((err: Error) => err.message);
        expect(nested).to.equal('the outer unit fails');
        expect(await Promise.all(users.map((u) => ledger.balanceOf(t.tenantId, u)))).to.deep.equal([15, 5, 5]);
      });
    });
  }

  it('when a batch’s arguments cannot be sent, then each of its units fails with that error, and the next batch is sent', async () => {
    const db = await testDatabase();
    const ledger = new KnexLedger(db.knex);
    // A form that sends one unit's calls as a record PostgreSQL's JSON refuses.
    const units = new KnexUnitOfWork(db.knex, {
      batch: (held) =>
        held[0]!.fn === 'unsendable'
          ? { fn: 'unsendable', args: [], types: [], many: 'pbw_ledger_write_batch', record: '{"write": not json}' }
          : ledgerWriteBatch(held),
    });
    const t = ledgerTenant();
    const u = t.newUser();
    const unsendable = () => units.run(async () => void hold({ fn: 'unsendable', args: [], types: [] }));
    const outcomes = await Promise.allSettled([unsendable(), unsendable(), unsendable()]);
    expect(outcomes.map((o) => (o.status === 'rejected' ? (o.reason as { code?: string }).code : 'written'))).to.deep.equal([
      '22P02',
      '22P02',
      '22P02',
    ]);
    await units.run(() => topUpOf(ledger, t, u, 10));
    expect(await ledger.balanceOf(t.tenantId, u)).to.equal(10);
  });
});
