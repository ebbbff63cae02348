import { expect } from 'chai';
import { json, startTestApp, type TestApp } from '../support/app.js';
import { buildAgent, eventually, unique, type TestAgent } from '../support/builders.js';
import { startDnsStub, type DnsStub } from '../support/dns-server.js';
import { bearer, buildTenant, machineToken } from '../support/wallet-builders.js';
import { startReceiver, type Receiver } from '../support/webhook-receiver.js';

type Body = Record<string, any>;

describe('webhook URL lookups over HTTP (a name server that never answers)', function () {
  this.timeout(30_000);
  let dns: DnsStub;
  let app: TestApp;
  before(async () => {
    dns = await startDnsStub({ 'hooks.ok.test': { a: ['127.0.0.1'] }, 'hooks.stall.test': 'stall' });
    app = await startTestApp({
      env: {
        WEBHOOK_ALLOW_INSECURE: 'on',
        WEBHOOK_ALLOW_PRIVATE: 'on',
        WEBHOOK_DNS_SERVERS: dns.server,
        WEBHOOK_DNS_TIMEOUT_MS: '1500',
      },
    });
  });
  after(async () => {
    await app.stop();
    await dns.close();
  });

  const register = async (agent: TestAgent, url: string): Promise<{ status: number; body: Body; ms: number }> => {
    const started = Date.now();
    const res = await app.request(
      '/api/v1/webhook-endpoints',
      json('POST', { url, events: ['order.confirmed'] }, { 'X-API-KEY': agent.apiKey }),
    );
    return { status: res.status, body: (await res.json()) as Body, ms: Date.now() - started };
  };

  it('when the host’s name server never answers, then 400 invalid-webhook-url within WEBHOOK_DNS_TIMEOUT_MS', async () => {
    const agent = await buildAgent(app.service);
    const r = await register(agent, 'https://hooks.stall.test/in');
    expect(r.status).to.equal(400);
    expect(r.body.reason).to.equal('invalid-webhook-url');
    expect(r.ms).to.be.below(3_000);
  });

  it('when one agent has six stalled registrations pending, then another agent’s registration completes at once', async () => {
    const a = await buildAgent(app.service);
    const b = await buildAgent(app.service);
    const stalled = Array.from({ length: 6 }, () => register(a, 'https://hooks.stall.test/in').then((r) => ({ ...r, at: Date.now() })));
    await new Promise((r) => setTimeout(r, 150));
    const other = await register(b, 'http://hooks.ok.test:8080/in');
    const otherDone = Date.now();
    expect(other.status, JSON.stringify(other.body)).to.equal(201);
    expect(other.ms).to.be.below(800);
    const ended = await Promise.all(stalled);
    for (const r of ended) expect(r.body.reason).to.equal('invalid-webhook-url');
    expect(Math.min(...ended.map((r) => r.at))).to.be.greaterThan(otherDone);
  });

  it('when WEBHOOK_DNS_SERVERS is not an address list, then the configuration is refused', async () => {
    const { loadConfig } = await import('../../src/bootstrap/config.js');
    expect(() => loadConfig({ WEBHOOK_DNS_SERVERS: 'dns.example:53' })).to.throw(/WEBHOOK_DNS_SERVERS/);
    expect(() => loadConfig({ WEBHOOK_DNS_TIMEOUT_MS: '60000' })).to.throw(/WEBHOOK_DNS_TIMEOUT_MS/);
    expect(loadConfig({ WEBHOOK_DNS_SERVERS: '127.0.0.1:5353, [::1]:53,10.0.0.2' }).webhooks.dnsServers).to.deep.equal([
      '127.0.0.1:5353',
      '[::1]:53',
      '10.0.0.2',
    ]);
    expect(loadConfig({}).webhooks).to.include({ dnsTimeoutMs: 3000, dnsServers: null, retentionDays: 30 });
  });
});

describe('webhook retention (WEBHOOK_RETENTION_DAYS)', function () {
  this.timeout(30_000);
  const DEV_ENV = { WEBHOOK_ALLOW_INSECURE: 'on', WEBHOOK_ALLOW_PRIVATE: 'on', WEBHOOK_POLL_MS: '100' };
  let app: TestApp;
  let receiver: Receiver;
  before(async () => {
    app = await startTestApp({ env: DEV_ENV });
    receiver = await startReceiver();
  });
  after(async () => {
    await receiver.close();
    await app.stop();
  });

  it('when delivered and failed deliveries are past retention, then a serving instance purges them in the background; pending and recent ones stay', async () => {
    const tenant = await buildTenant(app.service);
    const machine = await machineToken(app, tenant);
    const endpoints: string[] = [];
    for (let i = 0; i < 4; i++) {
      const reg = await app.request(
        '/webhook-endpoints',
        json('POST', { url: receiver.url, events: ['wallet_user.created'] }, bearer(machine)),
      );
      expect(reg.status).to.equal(201);
      endpoints.push(((await reg.json()) as Body).id as string);
    }
    const deliveriesOf = async (endpointId: string): Promise<Body[]> =>
      ((await (await app.request(`/webhook-endpoints/${endpointId}/deliveries`, { headers: bearer(machine) })).json()) as Body)
        .data as Body[];
    expect((await app.request('/users', json('POST', { externalUserRef: `ref-${unique()}` }, bearer(machine)))).status).to.equal(201);
    await eventually(
      async () => (await Promise.all(endpoints.map(deliveriesOf))).every((d) => d.length === 1 && d[0]!.status === 'delivered'),
      10_000,
      'four deliveries delivered',
    );
    const [oldDelivered, oldFailed, oldPending, recent] = endpoints as [string, string, string, string];
    const knex = app.service.db!.knex;
    const aged = knex.raw("now() - interval '31 days'");
    await knex('webhook_deliveries').where({ endpoint_id: oldDelivered }).update({ last_attempt_at: aged });
    await knex('webhook_deliveries').where({ endpoint_id: oldFailed }).update({ status: 'failed', last_attempt_at: aged });
    await knex('webhook_deliveries')
      .where({ endpoint_id: oldPending })
      .update({ status: 'pending', last_attempt_at: aged, next_attempt_at: knex.raw("now() + interval '1 hour'") });

    // Another instance starts: its purge runs at start, then every few minutes.
    const other = await startTestApp({ env: { ...DEV_ENV, WEBHOOK_RETENTION_DAYS: '30' } });
    try {
      await eventually(
        async () => (await deliveriesOf(oldDelivered)).length === 0 && (await deliveriesOf(oldFailed)).length === 0,
        10_000,
        'the old delivered and failed deliveries purged',
      );
    } finally {
      await other.stop();
    }
    expect((await deliveriesOf(oldPending)).map((d) => d.status)).to.deep.equal(['pending']);
    expect((await deliveriesOf(recent)).map((d) => d.status)).to.deep.equal(['delivered']);
  });
});
