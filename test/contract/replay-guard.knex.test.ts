import { KnexReplayGuard } from '../../src/adapters/knex/replay-guard.knex.js';
import { testDatabase } from '../support/database.js';
import { replayGuardContract } from 'partner-booking-wallet/testing';

replayGuardContract('PostgreSQL (Knex)', async () => new KnexReplayGuard((await testDatabase()).knex));
