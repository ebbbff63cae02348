import { expect } from 'chai';
import { KnexIdempotencyStore } from '../../src/adapters/knex/idempotency.knex.js';
import type { Order } from '../../src/domain/booking/order.js';
import { randomUUID } from 'node:crypto';
import { KnexAgentDirectory } from '../../src/adapters/knex/agent-directory.knex.js';
import { KnexCatalogue } from '../../src/adapters/knex/catalogue.knex.js';
import { KnexOrderRepo } from '../../src/adapters/knex/order-repo.knex.js';
import { KnexQuoteRepo } from '../../src/adapters/knex/quote-repo.knex.js';
import { KnexTariffReader } from '../../src/adapters/knex/tariff.knex.js';
import { KnexTripInventory } from '../../src/adapters/knex/trip-inventory.knex.js';
import { KnexWebhookStore } from '../../src/adapters/knex/webhook-store.knex.js';
import { databaseKind, testDatabase } from '../support/database.js';
import { dropTestSchedules, orderRecord } from '../support/booking-builders.js';
import { bookingContract, keyRecordOf } from 'partner-booking-wallet/testing';

bookingContract(
  'PostgreSQL (Knex)',
  async () => {
    const { knex } = await testDatabase();
    return {
      quotes: new KnexQuoteRepo(knex),
      orders: new KnexOrderRepo(knex),
      inventory: new KnexTripInventory(knex),
      tariffs: new KnexTariffReader(knex),
      catalogue: new KnexCatalogue(knex),
      directory: new KnexAgentDirectory(knex),
    };
  },
  {
    concurrent: async () => (await databaseKind()) === 'postgres',
    cleanup: async () => dropTestSchedules((await testDatabase()).knex),
    events: async () => {
      const webhooks = new KnexWebhookStore((await testDatabase()).knex);
      return { webhooks, log: webhooks };
    },
  },
);

describe('orders under an idempotency claim (PostgreSQL)', () => {
  it('when a bus order and its cancellation are written through the claim’s unit of work, then a released claim undoes them and a completed one keeps them', async function () {
    const db = await testDatabase();
    if (db.target.kind !== 'postgres') this.skip(); // PGlite holds claims in the process: no unit of work
    const { knex } = db;
    const store = new KnexIdempotencyStore(knex, { holding: { kind: 'transaction', claims: knex } });
    const orders = new KnexOrderRepo(knex);
    const directory = new KnexAgentDirectory(knex);
    const quotes = new KnexQuoteRepo(knex);
    const channelCode = `C-${randomUUID()}`;
    await directory.createChannel({
      code: channelCode,
      name: 'Channel',
      currency: 'THB',
      markupBps: 0,
      freeCancellationHours: 24,
      lateCancellationFeeBps: 5000,
    });
    const agentId = (
      await directory.createAgent({
        id: `agt_${randomUUID()}`,
        name: 'Agent',
        channelCode,
        entitlements: ['express-bus'],
        discountBps: 0,
        createdAt: new Date(),
      })
    ).id;
    const keyId = `key_${randomUUID()}`;
    await directory.insertKey(keyRecordOf(agentId, { id: keyId, createdAt: new Date() }));
    // A webhook endpoint of the agent's, so that its orders record their events.
    await knex('webhook_endpoints').insert({
      id: `whe_${randomUUID()}`,
      owner_kind: 'agent',
      owner_id: agentId,
      url: 'https://example.com/hook',
      events: ['order.confirmed', 'order.cancelled'],
      sealed_secret: 'x',
      created_at: new Date(),
    });
    const tripId = `trp_${randomUUID()}`;
    const busOrder = async (): Promise<Order> => {
      const order: Order = {
        ...orderRecord(agentId),
        channelCode,
        keyId,
        product: 'express-bus',
        seats: { tripId, scheduleId: `sch_${randomUUID()}`, departsAt: new Date(Date.now() + 86_400_000), capacity: 10, seats: 3 },
      };
      await quotes.insert({ ...order, id: order.quoteId, expiresAt: new Date(Date.now() + 900_000) });
      return order;
    };
    const seatsLeft = async () =>
      ((await knex('trip_inventory').where({ trip_id: tripId }).first()) as { seats_left: number } | undefined)?.seats_left;
    const events = async (type: string) => Number((await knex('webhook_events').where({ owner_id: agentId, type }).count('* as n'))[0]!.n);
    const claim = async () => {
      const c = await store.claim({ scope: `agent:${agentId}`, key: randomUUID(), fingerprint: 'f' }, new Date());
      if (c.state !== 'claimed') throw new Error('expected a new claim');
      expect(c.lease.unitOfWork).to.not.equal(undefined);
      return c.lease;
    };
    const stored = { status: 201, contentType: 'application/json', body: '{}' };

    const failed = await claim();
    const undone = await orders.place(await busOrder(), failed.unitOfWork);
    expect(await orders.findForAgent(agentId, undone.id)).to.equal(null); // not committed while the request runs
    expect(await orders.findForAgent(agentId, undone.id, failed.unitOfWork)).to.not.equal(null); // but seen by the request
    await failed.release();
    expect(await orders.findForAgent(agentId, undone.id)).to.equal(null);
    expect(await seatsLeft()).to.equal(undefined);
    expect(await events('order.confirmed')).to.equal(0);

    const done = await claim();
    const kept = await orders.place(await busOrder(), done.unitOfWork);
    await done.complete(stored, new Date());
    expect((await orders.findForAgent(agentId, kept.id))?.status).to.equal('CONFIRMED');
    expect(await seatsLeft()).to.equal(7);
    expect(await events('order.confirmed')).to.equal(1);

    const refund = { amount: 100, currency: 'THB' as const };
    const free = { amount: 0, currency: 'THB' as const };
    const cancelFailed = await claim();
    await orders.cancel(agentId, kept.id, () => ({ refund, fee: free }), new Date(), cancelFailed.unitOfWork);
    await cancelFailed.release();
    expect((await orders.findForAgent(agentId, kept.id))?.status).to.equal('CONFIRMED');
    expect(await seatsLeft()).to.equal(7);
    expect(await events('order.cancelled')).to.equal(0);

    const cancelDone = await claim();
    await orders.cancel(agentId, kept.id, () => ({ refund, fee: free }), new Date(), cancelDone.unitOfWork);
    await cancelDone.complete({ ...stored, status: 200 }, new Date());
    expect((await orders.findForAgent(agentId, kept.id))?.status).to.equal('CANCELLED');
    expect(await seatsLeft()).to.equal(10);
    expect(await events('order.cancelled')).to.equal(1);
  });
});
