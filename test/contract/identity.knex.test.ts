import { KnexKeyUsageStore } from '../../src/adapters/knex/key-usage.knex.js';
import { KnexAgentDirectory } from '../../src/adapters/knex/agent-directory.knex.js';
import { KnexAgentResolver } from '../../src/adapters/knex/agent-resolver.knex.js';
import { KnexWebhookStore } from '../../src/adapters/knex/webhook-store.knex.js';
import { testDatabase } from '../support/database.js';
import { identityContract } from 'partner-booking-wallet/testing';

identityContract(
  'PostgreSQL (Knex)',
  async () => {
    const db = await testDatabase();
    return { directory: new KnexAgentDirectory(db.knex), resolver: new KnexAgentResolver(db.knex), usage: new KnexKeyUsageStore(db.knex) };
  },
  {
    events: async () => {
      const webhooks = new KnexWebhookStore((await testDatabase()).knex);
      return { webhooks, log: webhooks };
    },
  },
);
