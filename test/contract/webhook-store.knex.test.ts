import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { orderChanged } from '../../src/domain/webhooks/events.js';
import { orderRecord } from '../support/booking-builders.js';
import { KnexWebhookStore } from '../../src/adapters/knex/webhook-store.knex.js';
import { recordEvents } from '../../src/adapters/knex/outbox.knex.js';
import { databaseKind, testDatabase } from '../support/database.js';
import { webhookStoreContract } from 'partner-booking-wallet/testing';

webhookStoreContract(
  'PostgreSQL (Knex)',
  async () => {
    const { knex } = await testDatabase();
    const store = new KnexWebhookStore(knex);
    return { store, record: (events) => recordEvents(knex, events), log: store };
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
