import { expect } from 'chai';
import { startTestApp, type TestApp } from '../support/app.js';
import { buildAgent } from '../support/builders.js';
import { basicAuth, bearer, buildTenant, formPost } from '../support/wallet-builders.js';
import { TOKENS } from '../../src/bootstrap/tokens.js';

/** The value of one sample line of the exposition, or 0 when it is absent. */
const sample = (text: string, name: string, labels: Record<string, string>): number => {
  const want = Object.entries(labels).map(([k, v]) => `${k}="${v}"`);
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${name}{`)) continue;
    const inside = line.slice(name.length + 1, line.indexOf('}'));
    if (want.every((w) => inside.split(',').includes(w))) return Number(line.slice(line.lastIndexOf(' ') + 1));
  }
  return 0;
};

describe('Prometheus metrics (METRICS_PORT)', () => {
  let app: TestApp;
  let metricsUrl: string;
  before(async () => {
    app = await startTestApp({ env: { METRICS_PORT: '0', RATE_LIMITS: 'on', RATE_LIMIT_BOOKING: '3/60' } });
    metricsUrl = app.service.container.get(TOKENS.MetricsServer).url as string;
  });
  after(() => app.stop());

  const scrape = async (): Promise<string> => {
    const res = await fetch(metricsUrl);
    expect(res.status).to.equal(200);
    expect(res.headers.get('content-type')).to.match(/^text\/plain/);
    return res.text();
  };

  it('when metrics are on, then they are served on a loopback listener of their own and not on the public port', async () => {
    expect(new URL(metricsUrl).hostname).to.equal('127.0.0.1');
    expect(new URL(metricsUrl).port).to.not.equal(new URL(app.url).port);
    expect((await app.request('/metrics')).status).to.equal(404);
  });

  it('when requests are answered, then they are counted by route template and status with latency, refusals by reason and limiter', async () => {
    const agent = await buildAgent(app.service);
    for (let i = 0; i < 3; i += 1)
      expect((await app.request('/api/v1/agent/account', { headers: { 'X-API-KEY': agent.apiKey } })).status).to.equal(200);
    expect((await app.request('/api/v1/agent/account', { headers: { 'X-API-KEY': agent.apiKey } })).status).to.equal(429);
    expect((await app.request('/api/v1/agent/account', { headers: { 'X-API-KEY': 'pbk_nope' } })).status).to.equal(401);
    const tenant = await buildTenant(app.service);
    expect(
      (
        await app.request(
          '/oauth/token',
          formPost({ grant_type: 'client_credentials' }, { authorization: basicAuth(tenant.clientId, 'wrong') }),
        )
      ).status,
    ).to.equal(401);
    const text = await scrape();
    expect(sample(text, 'http_request_duration_seconds_count', { route: '/api/v1/agent/account', status: '200', method: 'GET' })).to.equal(
      3,
    );
    expect(sample(text, 'http_request_duration_seconds_bucket', { route: '/api/v1/agent/account', status: '200', le: '+Inf' })).to.equal(3);
    expect(sample(text, 'rate_limit_refusals_total', { limiter: 'booking' })).to.equal(1);
    expect(sample(text, 'auth_failures_total', { reason: 'invalid-api-key' })).to.equal(1);
    expect(sample(text, 'auth_failures_total', { reason: 'invalid_client' })).to.equal(1);
    // The key was looked up once, then answered from the cache.
    expect(sample(text, 'cache_lookups', { cache: 'api-keys', result: 'hit' })).to.be.at.least(2);
  });

  it('when money moves, then the ledger writes are counted by kind', async () => {
    const tenant = await buildTenant(app.service);
    const token = await app.request(
      '/oauth/token',
      formPost({ grant_type: 'client_credentials' }, { authorization: basicAuth(tenant.clientId, tenant.clientSecret) }),
    );
    const machine = ((await token.json()) as { access_token: string }).access_token;
    const created = await app.request('/users', {
      method: 'POST',
      headers: { ...bearer(machine), 'content-type': 'application/json' },
      body: JSON.stringify({ externalUserRef: 'metrics-user' }),
    });
    const userId = ((await created.json()) as { id: string }).id;
    const before = sample(await scrape(), 'ledger_writes_total', { kind: 'top-up' });
    const topUp = await app.request(`/users/${userId}/top-ups`, {
      method: 'POST',
      headers: { ...bearer(machine), 'content-type': 'application/json' },
      body: JSON.stringify({ amount: 500, reference: 'metrics' }),
    });
    expect(topUp.status).to.equal(201);
    expect(sample(await scrape(), 'ledger_writes_total', { kind: 'top-up' })).to.equal(before + 1);
  });
});
