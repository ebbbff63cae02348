import { expect } from 'chai';
import { KnexLedger } from '../../src/adapters/knex/ledger.knex.js';
import { GroupCommitLedger, LedgerWriteBatches } from '../../src/adapters/knex/ledger-group-commit.knex.js';
import { ambientTransaction, KnexUnitOfWork } from '../../src/adapters/knex/unit-of-work.knex.js';
import { rows } from '../../src/adapters/knex/sql.js';
import { testDatabase } from '../support/database.js';
import { ledgerTenant, topUpOf } from '../support/ledger-builders.js';

const later = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

describe('units of work on PostgreSQL (and embedded PGlite alike)', () => {
  it('when work left behind by an ended unit writes while another unit runs and fails, then that write is its own and stays', async () => {
    const db = await testDatabase();
    const units = new KnexUnitOfWork(db.knex);
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
    const units = new KnexUnitOfWork(db.knex);
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

  it('when a unit reads, locks and writes, then its work runs once, in one transaction', async () => {
    const db = await testDatabase();
    const units = new KnexUnitOfWork(db.knex);
    const ledger = new KnexLedger(db.knex);
    const t = ledgerTenant();
    const u = t.newUser();
    let runs = 0;
    const xids: string[] = [];
    const xid = async () => {
      const [row] = await rows<{ xid: string }>(ambientTransaction()!, 'SELECT txid_current()::text AS xid', []);
      xids.push(row!.xid);
    };
    await units.run(async () => {
      runs += 1;
      await xid();
      await topUpOf(ledger, t, u, 10);
      await rows(ambientTransaction()!, 'SELECT id FROM ledger_accounts WHERE tenant_id = $1 FOR UPDATE', [t.tenantId]);
      expect(await ledger.balanceOf(t.tenantId, u)).to.equal(10); // its own write, before its commit
      await xid();
    });
    expect(runs).to.equal(1);
    expect(new Set(xids).size).to.equal(1);
    expect(await ledger.balanceOf(t.tenantId, u)).to.equal(10);
  });
});

describe('the group-commit ledger (PostgreSQL, and embedded PGlite alike)', () => {
  it('when a batch cannot be sent, then each of its writes fails with that error, and the next batch is sent', async () => {
    const db = await testDatabase();
    const batches = new LedgerWriteBatches(db.knex);
    // Records PostgreSQL's JSON refuses: the statement itself fails.
    const outcomes = await Promise.allSettled([1, 2, 3].map(() => batches.send('not json', null)));
    expect(outcomes.map((o) => (o.status === 'rejected' ? (o.reason as { code?: string }).code : 'written'))).to.deep.equal([
      '22P02',
      '22P02',
      '22P02',
    ]);
    const ledger = new GroupCommitLedger(new KnexLedger(db.knex), db.knex);
    const t = ledgerTenant();
    const u = t.newUser();
    await topUpOf(ledger, t, u, 10);
    expect(await ledger.balanceOf(t.tenantId, u)).to.equal(10);
  });

  it('when a write is made in a unit of work, then it is the unit’s: undone with it', async () => {
    const db = await testDatabase();
    const units = new KnexUnitOfWork(db.knex);
    const ledger = new GroupCommitLedger(new KnexLedger(db.knex), db.knex);
    const t = ledgerTenant();
    const u = t.newUser();
    const failed = await units
      .run(async () => {
        await topUpOf(ledger, t, u, 40);
        expect(await ledger.balanceOf(t.tenantId, u)).to.equal(40);
        throw new Error('the unit fails');
      })
      .catch((err: Error) => err.message);
    expect(failed).to.equal('the unit fails');
    expect(await ledger.balanceOf(t.tenantId, u)).to.equal(0);
  });

  it('when work prepared for one statement makes a second ledger write or a refund, then it is refused and nothing is sent', async () => {
    const db = await testDatabase();
    const ledger = new GroupCommitLedger(new KnexLedger(db.knex), db.knex);
    const one = ledger.oneStatementWrites();
    const t = ledgerTenant();
    const u = t.newUser();
    const twice = one.prepare(async () => {
      await topUpOf(ledger, t, u, 5);
      await topUpOf(ledger, t, u, 5);
    });
    expect(await twice.catch((err: Error) => err.message)).to.equal('a write prepared for one statement makes one ledger write');
    const prepared = await one.prepare(() => topUpOf(ledger, t, u, 7));
    expect(prepared.write).to.not.equal(null);
    expect(await ledger.balanceOf(t.tenantId, u)).to.equal(0); // prepared, not sent
  });
});
