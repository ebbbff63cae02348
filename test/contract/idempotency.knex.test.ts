import { KnexIdempotencyStore } from '../../src/adapters/knex/idempotency.knex.js';
import { databaseKind, testDatabase } from '../support/database.js';
import { idempotencyContract } from './idempotency.contract.js';

idempotencyContract('PostgreSQL (Knex)', async () => new KnexIdempotencyStore((await testDatabase()).knex), {
  concurrent: async () => (await databaseKind()) === 'postgres',
});
