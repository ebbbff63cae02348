import { expect } from 'chai';
import { startTestApp, type TestApp } from '../support/app.js';
import { buildAgent } from '../support/builders.js';
import { testRedisUrl, uniqueRedisPrefix } from '../support/redis.js';
import { localAllowance } from '../../src/adapters/redis/rate-limit-counter.redis.js';

/**
 * One budget across three instances sharing one Redis, each counting locally and settling in
 * batches: in one window a client gets at least its limit and at most limit + N × allowance
 * (docs/scaling.md), never a budget per instance.
 */
describe('request-rate limits counted in Redis by three instances', () => {
  const LIMIT = 100;
  const INSTANCES = 3;
  /** The bound docs/scaling.md states: at most N × allowance over the limit in one window. */
  const BOUND = LIMIT + INSTANCES * localAllowance(LIMIT);
  let apps: TestApp[] = [];

  beforeEach(async function () {
    const redis = await testRedisUrl();
    if (redis === null) this.skip();
    // A key prefix of this run's own: parallel runs sharing the Redis never count together.
    const env = { RATE_LIMITS: 'on', RATE_LIMIT_BOOKING: `${LIMIT}/60`, REDIS_URL: redis as string, REDIS_KEY_PREFIX: uniqueRedisPrefix() };
    apps = [];
    for (let i = 0; i < INSTANCES; i += 1) apps.push(await startTestApp({ env }));
  });

  afterEach(async () => {
    for (const app of apps) await app.stop();
  });

  const read = (app: TestApp, apiKey: string) => app.request('/api/v1/agent/account', { headers: { 'X-API-KEY': apiKey } });

  it('states a bound well under a budget per instance', () => {
    expect(localAllowance(LIMIT)).to.be.greaterThan(0);
    expect(BOUND).to.be.lessThan(2 * LIMIT);
  });

  it('when one key sends three times its limit at once over three instances, then between its limit and the bound are admitted', async () => {
    const agent = await buildAgent(apps[0]!.service);
    const answers = await Promise.all(Array.from({ length: INSTANCES * LIMIT }, (_, i) => read(apps[i % INSTANCES]!, agent.apiKey)));
    const admitted = answers.filter((r) => r.status === 200).length;
    expect(answers.filter((r) => r.status !== 200 && r.status !== 429)).to.deep.equal([]);
    expect(admitted).to.be.at.least(LIMIT);
    expect(admitted).to.be.at.most(BOUND);
    // Once settled, every instance refuses the key, with the usual answer.
    await new Promise((r) => setTimeout(r, 50));
    for (const app of apps) {
      const res = await read(app, agent.apiKey);
      expect(res.status).to.equal(429);
      expect(res.headers.get('content-type')).to.match(/^application\/problem\+json/);
      expect(Number(res.headers.get('retry-after'))).to.be.within(1, 60);
      expect(res.headers.get('ratelimit-limit')).to.equal(String(LIMIT));
      expect(res.headers.get('ratelimit-remaining')).to.equal('0');
      expect(await res.json()).to.include({ status: 429, reason: 'rate-limited' });
    }
  });

  it('when one key sends requests one after another round the three instances, then between its limit and the bound are admitted', async () => {
    const agent = await buildAgent(apps[0]!.service);
    let admitted = 0;
    for (let i = 0; i < INSTANCES * LIMIT; i += 1) {
      const res = await read(apps[i % INSTANCES]!, agent.apiKey);
      expect([200, 429]).to.include(res.status);
      if (res.status === 200) admitted += 1;
    }
    expect(admitted).to.be.at.least(LIMIT);
    expect(admitted).to.be.at.most(BOUND);
  });

  it('when the key spreads its requests in bursts with pauses, then the instances still share one budget', async () => {
    const agent = await buildAgent(apps[0]!.service);
    let admitted = 0;
    for (let burst = 0; burst < 10; burst += 1) {
      const answers = await Promise.all(Array.from({ length: 30 }, (_, i) => read(apps[i % INSTANCES]!, agent.apiKey)));
      admitted += answers.filter((r) => r.status === 200).length;
      await new Promise((r) => setTimeout(r, 15));
    }
    expect(admitted).to.be.at.least(LIMIT);
    expect(admitted).to.be.at.most(BOUND);
  });
});

describe('request-rate limits counted in Redis by one instance', () => {
  it('when one key sends three times its limit at once, then exactly its limit is admitted (the local view is exact)', async function () {
    const redis = await testRedisUrl();
    if (redis === null) this.skip();
    const env = { RATE_LIMITS: 'on', RATE_LIMIT_BOOKING: '100/60', REDIS_URL: redis as string, REDIS_KEY_PREFIX: uniqueRedisPrefix() };
    const app = await startTestApp({ env });
    try {
      const agent = await buildAgent(app.service);
      const answers = await Promise.all(
        Array.from({ length: 300 }, () => app.request('/api/v1/agent/account', { headers: { 'X-API-KEY': agent.apiKey } })),
      );
      expect(answers.filter((r) => r.status === 200)).to.have.length(100);
      expect(answers.filter((r) => r.status === 429)).to.have.length(200);
      const remaining = answers.filter((r) => r.status === 200).map((r) => Number(r.headers.get('ratelimit-remaining')));
      expect(Math.min(...remaining)).to.equal(0);
      expect(Math.max(...remaining)).to.equal(99);
    } finally {
      await app.stop();
    }
  });
});
