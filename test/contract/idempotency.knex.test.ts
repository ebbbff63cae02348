import { KnexIdempotencyStore } from '../../src/adapters/knex/idempotency.knex.js';
import { databaseKind, testDatabase } from '../support/database.js';
import { idempotencyContract } from 'partner-booking-wallet/testing';

idempotencyContract(
  'PostgreSQL (Knex)',
  async ({ waitMs }) => {
    const db = await testDatabase();
    // Claims in an open transaction on the server; in this process on PGlite (one connection).
    return new KnexIdempotencyStore(db.knex, {
      waitMs,
      holding: db.target.kind === 'postgres' ? { kind: 'transaction', claims: db.knex } : { kind: 'process' },
    });
  },
  { concurrent: async () => (await databaseKind()) === 'postgres' },
);
