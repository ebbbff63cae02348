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
