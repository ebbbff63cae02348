import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import type { Knex } from 'knex';
import { orderChanged, type EventOwner } from '../../src/domain/webhooks/events.js';
import { orderRecord } from '../support/booking-builders.js';
import { KnexWebhookStore } from '../../src/adapters/knex/webhook-store.knex.js';
import { recordEvents } from '../../src/adapters/knex/outbox.knex.js';
import { databaseKind, testDatabase } from '../support/database.js';
import { webhookStoreContract } from 'partner-booking-wallet/testing';

/**
 * Waits until every transaction begun before the call has ended (the feed serves an event once
 * the oldest open transaction of the server is younger than it; other sessions count too).
 */
async function settle(knex: Knex): Promise<void> {
  const [{ xmax }] = (await knex.raw('SELECT pg_snapshot_xmax(pg_current_snapshot())::text AS xmax')).rows as [{ xmax: string }];
  const until = Date.now() + 30_000;
  while (Date.now() < until) {
    const [{ done }] = (await knex.raw('SELECT pg_snapshot_xmin(pg_current_snapshot()) >= ?::xid8 AS done', [xmax])).rows as [
      { done: boolean },
    ];
    if (done) return;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error('a transaction of the server stayed open for 30 s');
}

webhookStoreContract(
  'PostgreSQL (Knex)',
  async () => {
    const { knex } = await testDatabase();
    const store = new KnexWebhookStore(knex);
    return { store, record: (events) => recordEvents(knex, events), log: store, settle: () => settle(knex) };
  },
  { concurrent: async () => (await databaseKind()) === 'postgres' },
);
describe('webhook store on PostgreSQL: events left without deliveries', () => {
  it('when an endpoint is deleted and the purge runs past the events’ date, then its stored events are removed too; events with deliveries stay', async () => {
    const { knex } = await testDatabase();
    const store = new KnexWebhookStore(knex);
    const owner = { kind: 'agent' as const, id: `agt_${randomBytes(8).toString('hex')}` };
    const endpoint = (id: string) => ({
      id,
      owner,
      url: 'https://hooks.example/in',
      events: ['order.confirmed' as const],
      description: null,
      status: 'active' as const,
      createdAt: new Date(),
      sealedSecret: 'v1.sealed',
    });
    const gone = `whe_${randomBytes(8).toString('hex')}`;
    await store.createEndpoint(endpoint(gone), 10);
    await recordEvents(knex, [orderChanged(orderRecord(owner.id), null, new Date())]);
    const orphaned = (await knex('webhook_events').where({ owner_id: owner.id }).pluck('id')) as string[];
    await store.deleteEndpoint(owner, gone);
    const kept = `whe_${randomBytes(8).toString('hex')}`;
    await store.createEndpoint(endpoint(kept), 10);
    await recordEvents(knex, [orderChanged(orderRecord(owner.id), null, new Date())]);
    const cutoff = new Date(Date.now() + 60_000);
    let events = 0;
    for (let i = 0; i < 1000; i++) {
      const batch = await store.purgeDeliveries(cutoff, 50);
      events += batch.events;
      if (batch.events === 0 && batch.deliveries === 0) break;
    }
    expect(events).to.be.at.least(1);
    const left = (await knex('webhook_events').where({ owner_id: owner.id }).pluck('id')) as string[];
    expect(left).to.have.length(1);
    expect(left).to.not.include(orphaned[0]);
  });
});

describe('event feed on PostgreSQL: concurrent commits', function () {
  this.timeout(120_000);
  let knex: Knex;
  let store: KnexWebhookStore;
  before(async function () {
    if ((await databaseKind()) !== 'postgres') this.skip(); // needs transactions open side by side
    ({ knex } = await testDatabase());
    store = new KnexWebhookStore(knex);
  });
  const agentOwner = (): EventOwner => ({ kind: 'agent', id: `agt_${randomBytes(8).toString('hex')}` });
  const orderIdOf = (body: string) => (JSON.parse(body) as { data: { id: string } }).data.id;
  const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

  it('when transaction A records first and holds while B records after it and commits, then B is not served until A commits; then A and B come in order after the position read before', async () => {
    const owner = agentOwner();
    const [start, a, b] = [orderRecord(owner.id), orderRecord(owner.id), orderRecord(owner.id)];
    await recordEvents(knex, [orderChanged(start, null, new Date())]);
    await settle(knex);
    const [first] = (await store.feed(owner, null, null, 10))!;
    expect(orderIdOf(first!.body)).to.equal(start.id);

    const trxA = await knex.transaction();
    try {
      await recordEvents(trxA, [orderChanged(a, null, new Date())]);
      await recordEvents(knex, [orderChanged(b, null, new Date())]);
      // B committed, and its row is visible to every new statement...
      expect(await knex('webhook_events').where({ owner_id: owner.id }).pluck('body')).to.have.length(2);
      // ...but a reader paging on from where it was is not served B while A may still commit before it.
      for (let i = 0; i < 5; i++) {
        expect(await store.feed(owner, first!.id, null, 10)).to.deep.equal([]);
        await sleep(20);
      }
      await trxA.commit();
    } catch (err) {
      await trxA.rollback();
      throw err;
    }
    await settle(knex);
    const next = (await store.feed(owner, first!.id, null, 10))!;
    expect(next.map((e) => orderIdOf(e.body))).to.deep.equal([a.id, b.id]);
    expect((await store.feed(owner, null, null, 10))!.map((e) => orderIdOf(e.body))).to.deep.equal([start.id, a.id, b.id]);
    expect(await store.feed(owner, next[1]!.id, null, 10)).to.deep.equal([]);
  });

  it('when A took its transaction id first but records only after B committed, then A still comes before B, and neither is skipped', async () => {
    const owner = agentOwner();
    const [start, a, b] = [orderRecord(owner.id), orderRecord(owner.id), orderRecord(owner.id)];
    await recordEvents(knex, [orderChanged(start, null, new Date())]);
    await settle(knex);
    const [first] = (await store.feed(owner, null, null, 10))!;
    const trxA = await knex.transaction();
    try {
      await trxA.raw('SELECT pg_current_xact_id()'); // A writes something else first
      await recordEvents(knex, [orderChanged(b, null, new Date())]);
      await recordEvents(trxA, [orderChanged(a, null, new Date())]);
      expect(await store.feed(owner, first!.id, null, 10)).to.deep.equal([]);
      await trxA.commit();
    } catch (err) {
      await trxA.rollback();
      throw err;
    }
    await settle(knex);
    expect((await store.feed(owner, first!.id, null, 10))!.map((e) => orderIdOf(e.body))).to.deep.equal([a.id, b.id]);
  });

  it('when writers commit and roll back concurrently while a reader pages on with after, then the reader gets every committed event exactly once and none rolled back', async () => {
    const owner = agentOwner();
    const committed: string[] = [];
    const rolledBack: string[] = [];
    let writing = true;
    const writer = async () => {
      for (let i = 0; i < 15; i++) {
        const orders = Array.from({ length: 1 + Math.floor(Math.random() * 3) }, () => orderRecord(owner.id));
        const trx = await knex.transaction();
        try {
          if (Math.random() < 0.5) await trx.raw('SELECT pg_current_xact_id()');
          await sleep(Math.random() * 15);
          await recordEvents(
            trx,
            orders.map((o) => orderChanged(o, null, new Date())),
          );
          await sleep(Math.random() * 15);
          if (Math.random() < 0.15) {
            await trx.rollback();
            rolledBack.push(...orders.map((o) => o.id));
          } else {
            await trx.commit();
            committed.push(...orders.map((o) => o.id));
          }
        } catch (err) {
          if (!trx.isCompleted()) await trx.rollback();
          throw err;
        }
      }
    };
    const seen: string[] = [];
    let after: string | null = null;
    let pages = 0;
    const readOnce = async () => {
      const page = (await store.feed(owner, after, null, 1 + Math.floor(Math.random() * 5)))!;
      pages += 1;
      for (const e of page) seen.push(orderIdOf(e.body));
      if (page.length > 0) after = page[page.length - 1]!.id;
      return page.length;
    };
    const reader = async () => {
      while (writing) if ((await readOnce()) === 0) await sleep(2);
      await settle(knex);
      while ((await readOnce()) > 0);
    };
    const read = reader();
    await Promise.all(Array.from({ length: 6 }, writer));
    writing = false;
    await read;
    expect(committed.length).to.be.greaterThan(20);
    expect(pages).to.be.greaterThan(10);
    expect(new Set(seen).size, 'no event served twice').to.equal(seen.length);
    expect([...seen].sort()).to.deep.equal([...committed].sort());
    for (const id of rolledBack) expect(seen).to.not.include(id);
  });
});
