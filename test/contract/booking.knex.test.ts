import { KnexAgentDirectory } from '../../src/adapters/knex/agent-directory.knex.js';
import { KnexCatalogue } from '../../src/adapters/knex/catalogue.knex.js';
import { KnexOrderRepo } from '../../src/adapters/knex/order-repo.knex.js';
import { KnexQuoteRepo } from '../../src/adapters/knex/quote-repo.knex.js';
import { KnexTariffReader } from '../../src/adapters/knex/tariff.knex.js';
import { KnexTripInventory } from '../../src/adapters/knex/trip-inventory.knex.js';
import { databaseKind, testDatabase } from '../support/database.js';
import { dropTestSchedules } from '../support/booking-builders.js';
import { bookingContract } from 'partner-booking-wallet/testing';

bookingContract(
  'PostgreSQL (Knex)',
  async () => {
    const { knex } = await testDatabase();
    return {
      quotes: new KnexQuoteRepo(knex),
      orders: new KnexOrderRepo(knex),
      inventory: new KnexTripInventory(knex),
      tariffs: new KnexTariffReader(knex),
      catalogue: new KnexCatalogue(knex),
      directory: new KnexAgentDirectory(knex),
    };
  },
  {
    concurrent: async () => (await databaseKind()) === 'postgres',
    cleanup: async () => dropTestSchedules((await testDatabase()).knex),
  },
);
