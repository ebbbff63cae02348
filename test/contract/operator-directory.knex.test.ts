import { KnexCatalogue } from '../../src/adapters/knex/catalogue.knex.js';
import { KnexOperatorDirectory } from '../../src/adapters/knex/operator-directory.knex.js';
import { testDatabase } from '../support/database.js';
import { operatorDirectoryContract } from 'partner-booking-wallet/testing';

operatorDirectoryContract('PostgreSQL (Knex)', async () => {
  const { knex } = await testDatabase();
  return { catalogue: new KnexCatalogue(knex), operators: new KnexOperatorDirectory(knex) };
});
