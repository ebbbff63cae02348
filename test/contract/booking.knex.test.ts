import { expect } from 'chai';
import { KnexIdempotencyStore } from '../../src/adapters/knex/idempotency.knex.js';
import { KnexUnitOfWork } from '../../src/adapters/knex/unit-of-work.knex.js';
import { IdempotentWrites } from '../../src/application/idempotent-writes.js';
import { SystemClock } from '../../src/adapters/crypto/node-crypto.js';
import type { Order } from '../../src/domain/booking/order.js';
import { cancelled } from '../../src/domain/booking/order-transitions.js';
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
      unitOfWork: new KnexUnitOfWork(knex),
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

describe('orders under an idempotency key (PostgreSQL, and embedded PGlite alike)', () => {
  it('when a bus order and its cancellation run under a key, then a failed answer undoes them and a stored one keeps them', async () => {
    const db = await testDatabase();
    const { knex } = db;
    const writes = new IdempotentWrites(new KnexUnitOfWork(knex), new KnexIdempotencyStore(knex), new SystemClock());
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
      maxHoldMinutes: 30,
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
      await quotes.insert({
        ...order,
        id: order.quoteId,
        expiresAt: new Date(Date.now() + 900_000),
        operator: { code: 'GULF-COAST-COACHES', name: 'Gulf Coast Coaches' },
        confirmation: 'instant',
      });
      return order;
    };
    const inventory = new KnexTripInventory(knex);
    const seatsLeft = async () => (await inventory.seatsLeft([{ tripId, capacity: 10 }], new Date(), true)).get(tripId);
    const events = async (type: string) => Number((await knex('webhook_events').where({ owner_id: agentId, type }).count('* as n'))[0]!.n);
    /** Runs `work` under a new key, answering `status`. */
    const underKey = (status: number, work: () => Promise<unknown>) =>
      writes.execute({ scope: `agent:${agentId}`, key: randomUUID(), fingerprint: 'f' }, async () => {
        await work();
        return { status, contentType: 'application/json', body: '{}' };
      });

    let undone: Order | null = null;
    await underKey(409, async () => {
      undone = await orders.place(await busOrder());
      expect(await orders.find({ agentId }, undone.id)).to.not.equal(null); // seen by the request
      if (db.target.kind === 'postgres') {
        // Not committed while the request runs (another connection; PGlite has only the one).
        expect(await knex('orders').where({ id: undone.id }).first()).to.equal(undefined);
      }
    });
    expect(await orders.find({ agentId }, undone!.id)).to.equal(null);
    expect(await seatsLeft()).to.equal(10);
    expect(await events('order.confirmed')).to.equal(0);

    let kept: Order | null = null;
    await underKey(201, async () => (kept = await orders.place(await busOrder())));
    expect((await orders.find({ agentId }, kept!.id))?.status).to.equal('CONFIRMED');
    expect(await seatsLeft()).to.equal(7);
    expect(await events('order.confirmed')).to.equal(1);

    const cancel = () => orders.change({ agentId }, kept!.id, (o) => cancelled(o, new Date(), 'agent', o.price.amount), new Date());
    await underKey(500, cancel);
    expect((await orders.find({ agentId }, kept!.id))?.status).to.equal('CONFIRMED');
    expect(await seatsLeft()).to.equal(7);
    expect(await events('order.cancelled')).to.equal(0);

    await underKey(200, cancel);
    expect((await orders.find({ agentId }, kept!.id))?.status).to.equal('CANCELLED');
    expect(await seatsLeft()).to.equal(10);
    expect(await events('order.cancelled')).to.equal(1);
  });
});
