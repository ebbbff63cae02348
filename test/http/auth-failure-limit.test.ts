import { expect } from 'chai';
import { randomBytes, randomInt } from 'node:crypto';
import { startTestApp, type TestApp } from '../support/app.js';
import { buildAgent } from '../support/builders.js';
import { reasonIn } from '../support/errors.js';
import { basicAuth, bearer, buildTenant, formPost } from '../support/wallet-builders.js';
import { generateApiKey } from '../../src/domain/identity/api-key.js';
import { DEFAULT_AUTH_FAILURE_RULE } from '../../src/bootstrap/config.js';

/** A key of the right shape and checksum that nobody was ever given: each try costs a lookup. */
const unknownKey = (): string => generateApiKey({ bytes: (n: number) => randomBytes(n) });

/**
 * An IPv4 client address of its own for each use (IPv6 addresses count per /56, so the
 * documentation-range ones of other suites would share one count).
 */
const testAddress = (): string => `10.${randomInt(0, 256)}.${randomInt(0, 256)}.${randomInt(1, 255)}`;

/** Counts the statements the service sends to its database while `run` runs. */
async function queriesDuring(app: TestApp, run: () => Promise<void>): Promise<number> {
  const knex = app.service.db?.knex;
  if (knex === undefined) throw new Error('the test app has no database');
  let count = 0;
  const onQuery = (): void => {
    count += 1;
  };
  knex.on('query', onQuery);
  try {
    await run();
  } finally {
    knex.off('query', onQuery);
  }
  return count;
}

const account = (app: TestApp, from: string, key: string) =>
  app.request('/api/v1/agent/account', { headers: { 'X-API-KEY': key, 'x-forwarded-for': from } });

describe('failed authentication, counted per client address', () => {
  describe('with a limit of 3 failures a minute', () => {
    let app: TestApp;
    before(async () => {
      // The client address comes from X-Forwarded-For (one trusted proxy), so each test is its own client.
      app = await startTestApp({ env: { RATE_LIMITS: 'on', RATE_LIMIT_AUTH_FAILURES: '3/60', TRUST_PROXY: '1' } });
    });
    after(() => app.stop());

    it('when an address presents unknown API keys past the limit, then 429 rate-limited with Retry-After, and the database is not asked', async () => {
      const from = testAddress();
      for (let i = 0; i < 3; i += 1) {
        const res = await account(app, from, unknownKey());
        expect(res.status).to.equal(401);
        expect(await reasonIn(res)).to.equal('invalid-api-key');
      }
      let refused: Response | undefined;
      const queries = await queriesDuring(app, async () => {
        refused = await account(app, from, unknownKey());
      });
      expect(refused?.status).to.equal(429);
      expect(refused?.headers.get('content-type')).to.match(/^application\/problem\+json/);
      expect(await reasonIn(refused as Response)).to.equal('rate-limited');
      expect(Number(refused?.headers.get('retry-after'))).to.be.within(1, 60);
      expect(queries).to.equal(0);
    });

    it('when an address is past the limit, then even a valid key from it waits, while other addresses are served', async () => {
      const agent = await buildAgent(app.service);
      const from = testAddress();
      for (let i = 0; i < 3; i += 1) expect((await account(app, from, unknownKey())).status).to.equal(401);
      expect((await account(app, from, agent.apiKey)).status).to.equal(429);
      expect((await account(app, testAddress(), agent.apiKey)).status).to.equal(200);
    });

    it('when successful requests are made, then they do not count as failures', async () => {
      const agent = await buildAgent(app.service);
      const from = testAddress();
      for (let i = 0; i < 6; i += 1) expect((await account(app, from, agent.apiKey)).status).to.equal(200);
      expect((await account(app, from, unknownKey())).status).to.equal(401);
    });

    it('when an address presents invalid bearer tokens past the limit, then 429 rate-limited', async () => {
      const from = testAddress();
      const me = () =>
        app.request('/me', { headers: { ...bearer(`eyJ${randomBytes(24).toString('base64url')}`), 'x-forwarded-for': from } });
      for (let i = 0; i < 3; i += 1) expect((await me()).status).to.equal(401);
      const refused = await me();
      expect(refused.status).to.equal(429);
      expect(await reasonIn(refused)).to.equal('rate-limited');
      expect(refused.headers.get('retry-after')).to.match(/^\d+$/);
    });

    it('when an address presents wrong client secrets past the limit, then the token endpoint answers 429 before checking the secret', async () => {
      const tenant = await buildTenant(app.service);
      const from = testAddress();
      const token = (secret: string) =>
        app.request(
          '/oauth/token',
          formPost({ grant_type: 'client_credentials' }, { authorization: basicAuth(tenant.clientId, secret), 'x-forwarded-for': from }),
        );
      for (let i = 0; i < 3; i += 1) {
        const res = await token(`wrong-${i}`);
        expect(res.status).to.equal(401);
        expect(((await res.json()) as { error: string }).error).to.equal('invalid_client');
      }
      let refused: Response | undefined;
      const queries = await queriesDuring(app, async () => {
        refused = await token(tenant.clientSecret);
      });
      expect(refused?.status).to.equal(429);
      // An OAuth endpoint: RFC 6749 JSON that an OAuth client parses, not problem+json.
      expect(refused?.headers.get('content-type')).to.match(/^application\/json/);
      expect(((await refused!.json()) as { error: string }).error).to.equal('temporarily_unavailable');
      expect(refused?.headers.get('retry-after')).to.match(/^\d+$/);
      expect(queries).to.equal(0);
      // Another address with the right secret still gets its token.
      const other = await app.request(
        '/oauth/token',
        formPost(
          { grant_type: 'client_credentials' },
          { authorization: basicAuth(tenant.clientId, tenant.clientSecret), 'x-forwarded-for': testAddress() },
        ),
      );
      expect(other.status).to.equal(200);
    });
  });

  it('when a revoked key is left in a cron job, then 60 failed tries within a minute are never limited', async () => {
    const app = await startTestApp({ env: { RATE_LIMITS: 'on', TRUST_PROXY: '1' } });
    try {
      const agent = await buildAgent(app.service);
      await app.service.core.admin.revokeApiKey.execute(agent.keyId, 'rotated');
      const from = testAddress();
      // The default rule allows more failures a minute than a job retrying every second makes.
      expect(DEFAULT_AUTH_FAILURE_RULE.windowSeconds).to.equal(60);
      expect(DEFAULT_AUTH_FAILURE_RULE.limit).to.be.above(60);
      for (let i = 0; i < 60; i += 1) {
        const res = await account(app, from, agent.apiKey);
        expect(res.status).to.equal(401);
        expect(await reasonIn(res)).to.equal('invalid-api-key');
      }
    } finally {
      await app.stop();
    }
  });

  it('when RATE_LIMITS=off, then failures are never limited', async () => {
    const app = await startTestApp({ env: { RATE_LIMITS: 'off', RATE_LIMIT_AUTH_FAILURES: '2/60', TRUST_PROXY: '1' } });
    try {
      const from = testAddress();
      for (let i = 0; i < 6; i += 1) expect((await account(app, from, unknownKey())).status).to.equal(401);
    } finally {
      await app.stop();
    }
  });
});
