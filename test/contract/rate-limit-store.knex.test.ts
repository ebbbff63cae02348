import { KnexRateLimitStore } from '../../src/adapters/knex/rate-limit-store.knex.js';
import { testDatabase } from '../support/database.js';
import { rateLimitStoreContract, unique } from 'partner-booking-wallet/testing';

rateLimitStoreContract('PostgreSQL (Knex)', async () => new KnexRateLimitStore((await testDatabase()).knex, `contract-${unique()}:`));
