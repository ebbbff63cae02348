import { KnexRevokedTokenStore } from '../../src/adapters/knex/token-revocation.knex.js';
import { testDatabase } from '../support/database.js';
import { revokedTokenStoreContract } from 'partner-booking-wallet/testing';

revokedTokenStoreContract('PostgreSQL (Knex)', async () => new KnexRevokedTokenStore((await testDatabase()).knex));
