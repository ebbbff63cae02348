import { KnexTenantDirectory } from '../../src/adapters/knex/tenant-directory.knex.js';
import { KnexWebhookStore } from '../../src/adapters/knex/webhook-store.knex.js';
import { databaseKind, testDatabase } from '../support/database.js';
import { tenantDirectoryContract } from 'partner-booking-wallet/testing';

tenantDirectoryContract('PostgreSQL (Knex)', async () => new KnexTenantDirectory((await testDatabase()).knex), {
  concurrent: async () => (await databaseKind()) === 'postgres',
  events: async () => {
    const webhooks = new KnexWebhookStore((await testDatabase()).knex);
    return { webhooks, log: webhooks };
  },
});
