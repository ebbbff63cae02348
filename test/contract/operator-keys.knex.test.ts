import { KnexOperatorDirectory } from '../../src/adapters/knex/operator-directory.knex.js';
import { KnexOperatorKeyStore } from '../../src/adapters/knex/operator-keys.knex.js';
import { testDatabase } from '../support/database.js';
import { operatorKeyStoreContract } from 'partner-booking-wallet/testing';

operatorKeyStoreContract('PostgreSQL (Knex)', async () => {
  const { knex } = await testDatabase();
  return { operators: new KnexOperatorDirectory(knex), keys: new KnexOperatorKeyStore(knex) };
});
