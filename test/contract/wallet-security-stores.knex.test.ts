import { randomBytes } from 'node:crypto';
import { AesGcmSecretSealer } from '../../src/adapters/crypto/secret-sealer.js';
import { KnexLoginThrottle } from '../../src/adapters/knex/login-throttle.knex.js';
import { KnexSigningKeyStore } from '../../src/adapters/knex/signing-key-store.knex.js';
import { databaseKind, testDatabase } from '../support/database.js';
import { walletSecurityStoresContract } from 'partner-booking-wallet/testing';

const sealer = new AesGcmSecretSealer(randomBytes(32));

walletSecurityStoresContract(
  'PostgreSQL (Knex)',
  async () => {
    const { knex } = await testDatabase();
    return { throttle: new KnexLoginThrottle(knex), keys: new KnexSigningKeyStore(knex, sealer) };
  },
  { concurrent: async () => (await databaseKind()) === 'postgres' },
);
