import { KnexCatalogue } from '../../src/adapters/knex/catalogue.knex.js';
import { testDatabase } from '../support/database.js';
import { catalogueContract } from 'partner-booking-wallet/testing';

catalogueContract('PostgreSQL (Knex)', async () => new KnexCatalogue((await testDatabase()).knex));
