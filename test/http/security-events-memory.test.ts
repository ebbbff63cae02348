import { expect } from 'chai';
import { json, startTestApp, type TestApp } from '../support/app.js';
import { buildAgent } from '../support/builders.js';
import { bearer, buildTenant, machineToken } from '../support/wallet-builders.js';

type Body = Record<string, any>;

/** The same trail in memory (`PERSISTENCE=memory`): recorded with each change, listed per owner, sent to subscribed endpoints. */
describe('security events in memory', () => {
  let app: TestApp;
  before(async () => {
    app = await startTestApp({ memory: true, env: { WEBHOOK_ALLOW_INSECURE: 'on', WEBHOOK_ALLOW_PRIVATE: 'on', WEBHOOK_WORKER: 'off' } });
  });
  after(() => app?.stop());

  const call = async (method: string, path: string, headers: Record<string, string>, body?: unknown) => {
    const res = await app.request(path, body === undefined ? { method, headers } : json(method, body, headers));
    const text = await res.text();
    return { status: res.status, body: (text === '' ? {} : JSON.parse(text)) as Body };
  };

  it('when a key is created and another refused, then the agent’s trail and its subscribed endpoint both have them', async () => {
    const agent = await buildAgent(app.service);
    const key = { 'X-API-KEY': agent.apiKey };
    const endpoint = await call('POST', '/api/v1/webhook-endpoints', key, {
      url: 'http://127.0.0.1:9/t',
      events: ['api_key.created', 'api_key.refused'],
    });
    expect(endpoint.status).to.equal(201);
    const reader = await call('POST', '/api/v1/keys', key, { name: 'reader', scopes: ['events:read'] });
    expect(reader.status).to.equal(201);
    const refused = await call('GET', '/api/v1/orders', { 'X-API-KEY': reader.body.apiKey as string });
    expect([refused.status, refused.body.reason, refused.body.requiredScope]).to.deep.equal([403, 'insufficient-scope', 'orders:read']);
    const trail = await call('GET', '/api/v1/security-events', { 'X-API-KEY': reader.body.apiKey as string });
    expect(trail.status).to.equal(200);
    expect((trail.body.data as Body[]).map((e) => e.type)).to.include.members([
      'api_key.created',
      'api_key.refused',
      'webhook_endpoint.created',
    ]);
    const deliveries = await call('GET', `/api/v1/webhook-endpoints/${endpoint.body.id}/deliveries`, key);
    expect((deliveries.body.data as Body[]).map((d) => d.type).sort()).to.deep.equal(['api_key.created', 'api_key.refused']);
  });

  it('when a tenant’s backend creates a user, then the tenant’s trail has user.created by its client', async () => {
    const tenant = await buildTenant(app.service);
    const machine = await machineToken(app, tenant);
    const made = await call('POST', '/users', bearer(machine), { externalUserRef: 'mem-1' });
    expect(made.status).to.equal(201);
    const trail = await call('GET', '/security-events?type=user.created', bearer(machine));
    expect(trail.body.data).to.have.length(1);
    expect(trail.body.data[0]).to.deep.include({
      actor: { kind: 'client', id: tenant.clientId },
      subject: { kind: 'wallet_user', id: made.body.id },
    });
  });
});
