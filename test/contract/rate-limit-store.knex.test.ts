import { expect } from 'chai';
import { KnexRateLimitStore, purgeExpiredRateLimits } from '../../src/adapters/knex/rate-limit-store.knex.js';
import { testDatabase } from '../support/database.js';
import { rateLimitStoreContract, unique } from 'partner-booking-wallet/testing';

rateLimitStoreContract('PostgreSQL (Knex)', async () => new KnexRateLimitStore((await testDatabase()).knex, `contract-${unique()}:`));

describe('rate-limit windows in PostgreSQL (and embedded PGlite alike): the purge', () => {
  it('when windows ended over a minute ago are purged, then they are gone, counted, and the current ones stay', async () => {
    const { knex } = await testDatabase();
    const prefix = `purge-${unique()}:`;
    const ended = new Date(Date.now() - 120_000);
    const current = new Date(Date.now() + 60_000);
    await knex('rate_limit_hits').insert([
      { key: `${prefix}old`, hits: 3, reset_at: ended },
      { key: `${prefix}now`, hits: 1, reset_at: current },
    ]);
    expect(await purgeExpiredRateLimits(knex)).to.be.at.least(1);
    const left = await knex('rate_limit_hits').where('key', 'like', `${prefix}%`).pluck('key');
    expect(left).to.deep.equal([`${prefix}now`]);
    expect(await purgeExpiredRateLimits(knex)).to.equal(0);
  });
});
