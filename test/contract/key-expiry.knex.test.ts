import { KnexAgentDirectory } from '../../src/adapters/knex/agent-directory.knex.js';
import { KnexKeyExpiryNotices } from '../../src/adapters/knex/key-expiry.knex.js';
import { KnexWebhookStore } from '../../src/adapters/knex/webhook-store.knex.js';
import { testDatabase } from '../support/database.js';
import { keyExpiryContract } from 'partner-booking-wallet/testing';

keyExpiryContract('PostgreSQL (Knex)', async () => {
  const { knex } = await testDatabase();
  const webhooks = new KnexWebhookStore(knex);
  return { directory: new KnexAgentDirectory(knex), notices: new KnexKeyExpiryNotices(knex), events: { webhooks, log: webhooks } };
});
