import { KnexLoginThrottle } from '../../src/adapters/knex/login-throttle.knex.js';
import { KnexSigningKeyStore } from '../../src/adapters/knex/signing-key-store.knex.js';
import { databaseKind, testDatabase } from '../support/database.js';
import { walletSecurityStoresContract } from 'partner-booking-wallet/testing';

walletSecurityStoresContract(
  'PostgreSQL (Knex)',
  async () => {
    const { knex } = await testDatabase();
    return { throttle: new KnexLoginThrottle(knex), keys: new KnexSigningKeyStore(knex) };
  },
  { concurrent: async () => (await databaseKind()) === 'postgres' },
);
