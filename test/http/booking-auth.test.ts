import { expect } from 'chai';
import { startTestApp, type TestApp } from '../support/app.js';
import { buildAgent, issueKey, type TestAgent } from '../support/builders.js';
import { DAY_MS, MINUTE_MS, ManualClock } from '../support/clock.js';
import { generateApiKey } from '../../src/domain/identity/api-key.js';
import { randomBytes } from 'node:crypto';

const problem = async (res: Response): Promise<Record<string, unknown>> => {
  expect(res.headers.get('content-type')).to.match(/^application\/problem\+json/);
  return (await res.json()) as Record<string, unknown>;
};

for (const mode of ['database', 'memory'] as const) {
  describe(`booking authentication (X-API-KEY) (${mode})`, () => {
    let app: TestApp;
    let agent: TestAgent;
    const clock = new ManualClock();
    const account = (headers: Record<string, string> = {}) => app.request('/api/v1/agent/account', { headers });

    before(async () => {
      app = await startTestApp({ clock, memory: mode === 'memory' });
      agent = await buildAgent(app.service, { markupBps: 250, discountBps: 100, products: ['express-bus'] });
    });
    after(() => app.stop());

    it('when no X-API-KEY header is sent, then 401 missing-api-key as problem+json with a request id', async () => {
      const res = await account();
      expect(res.status).to.equal(401);
      const body = await problem(res);
      expect(body).to.include({ status: 401, reason: 'missing-api-key' });
      expect(body.requestId).to.be.a('string').and.equal(res.headers.get('x-request-id'));
      expect(body.message).to.be.a('string');
    });

    it('when the header is empty, then 401 missing-api-key', async () => {
      const res = await account({ 'X-API-KEY': '' });
      expect(res.status).to.equal(401);
      expect((await problem(res)).reason).to.equal('missing-api-key');
    });

    it('when the key is well formed but was never issued, then 401 invalid-api-key', async () => {
      const res = await account({ 'X-API-KEY': generateApiKey({ bytes: (n) => randomBytes(n) }) });
      expect(res.status).to.equal(401);
      expect((await problem(res)).reason).to.equal('invalid-api-key');
    });

    it('when the key is garbage or has a bad checksum, then 401 invalid-api-key', async () => {
      for (const bad of ['hello', `${agent.apiKey.slice(0, -1)}${agent.apiKey.endsWith('x') ? 'y' : 'x'}`, `Bearer ${agent.apiKey}`]) {
        const res = await account({ 'X-API-KEY': bad });
        expect(res.status, bad).to.equal(401);
        expect((await problem(res)).reason).to.equal('invalid-api-key');
      }
    });

    it('when the key is valid, then the account shows the agent, channel, pricing, entitlements and key, not the key itself', async () => {
      const res = await account({ 'X-API-KEY': agent.apiKey });
      expect(res.status).to.equal(200);
      const body = (await res.json()) as Record<string, any>;
      expect(body).to.include({ agentId: agent.agentId, status: 'ACTIVE' });
      expect(body.channel).to.deep.equal({ code: agent.channelCode, name: `Channel ${agent.channelCode}`, currency: 'THB' });
      expect(body.entitlements).to.deep.equal(['express-bus']);
      expect(body.pricing).to.deep.include({ channelMarkupBps: 250, agentDiscountBps: 100 });
      expect(body.apiKey).to.include({ id: agent.keyId, prefix: agent.apiKey.slice(0, 8), expiresAt: null });
      expect(JSON.stringify(body)).not.to.include(agent.apiKey);
    });

    it('when the caller adds agent or channel parameters, then they are ignored: identity is the key alone', async () => {
      const other = await buildAgent(app.service);
      const res = await app.request(`/api/v1/agent/account?agentId=${other.agentId}&channel=${other.channelCode}`, {
        headers: { 'X-API-KEY': agent.apiKey, 'X-Agent-Id': other.agentId },
      });
      const body = (await res.json()) as Record<string, any>;
      expect(body.agentId).to.equal(agent.agentId);
      expect(body.channel.code).to.equal(agent.channelCode);
    });

    it('when the key is revoked, then 401 invalid-api-key; the agent’s other key still works', async () => {
      const a = await buildAgent(app.service);
      const second = await issueKey(app.service, a.agentId);
      expect((await account({ 'X-API-KEY': a.apiKey })).status).to.equal(200);
      await app.service.core.admin.revokeApiKey.execute(a.keyId, 'rotated');
      const res = await account({ 'X-API-KEY': a.apiKey });
      expect(res.status).to.equal(401);
      expect((await problem(res)).reason).to.equal('invalid-api-key');
      expect((await account({ 'X-API-KEY': second.apiKey })).status).to.equal(200);
    });

    it('when the key has expired, then 401 invalid-api-key', async () => {
      const a = await buildAgent(app.service, { expiresInDays: 1 });
      expect((await account({ 'X-API-KEY': a.apiKey })).status).to.equal(200);
      await clock.shifted(DAY_MS - MINUTE_MS, async () => expect((await account({ 'X-API-KEY': a.apiKey })).status).to.equal(200));
      await clock.shifted(DAY_MS + MINUTE_MS, async () => {
        const res = await account({ 'X-API-KEY': a.apiKey });
        expect(res.status).to.equal(401);
        expect((await problem(res)).reason).to.equal('invalid-api-key');
      });
    });

    it('when the agent is suspended, then 403 agent-suspended; when re-activated, then 200 again', async () => {
      const a = await buildAgent(app.service);
      const status = app.service.core.admin.setAgentStatus;
      expect((await account({ 'X-API-KEY': a.apiKey })).status).to.equal(200);
      await status.execute(a.agentId, 'SUSPENDED');
      const res = await account({ 'X-API-KEY': a.apiKey });
      expect(res.status).to.equal(403);
      expect((await problem(res)).reason).to.equal('agent-suspended');
      await status.execute(a.agentId, 'ACTIVE');
      expect((await account({ 'X-API-KEY': a.apiKey })).status).to.equal(200);
    });

    it('when an unknown path under /api/v1 is called without a key, then 401 missing-api-key (not 404)', async () => {
      const res = await app.request('/api/v1/no/such/thing');
      expect(res.status).to.equal(401);
      expect((await problem(res)).reason).to.equal('missing-api-key');
    });

    it('when an unknown path under /api/v1 is called with a bad key, then 401 invalid-api-key', async () => {
      const res = await app.request('/api/v1/no/such/thing', { headers: { 'X-API-KEY': 'nope' } });
      expect(res.status).to.equal(401);
      expect((await problem(res)).reason).to.equal('invalid-api-key');
    });

    it('when an unknown path under /api/v1 is called with a valid key, then 404 not-found', async () => {
      const res = await app.request('/api/v1/no/such/thing', { headers: { 'X-API-KEY': agent.apiKey } });
      expect(res.status).to.equal(404);
      expect((await problem(res)).reason).to.equal('not-found');
    });

    it('when a public autocomplete route is called with no key or a bogus key, then it answers 200', async () => {
      for (const headers of [{}, { 'X-API-KEY': 'bogus' }, { 'X-API-KEY': agent.apiKey.slice(0, -2) }]) {
        const loc = await app.request('/api/v1/airport-transfer/locations?q=bkk', { headers });
        expect(loc.status).to.equal(200);
        const cities = await app.request('/api/v1/express-bus/cities?q=bang', { headers });
        expect(cities.status).to.equal(200);
      }
    });

    it('when the public route is called with another method, then the key is required', async () => {
      const res = await app.request('/api/v1/express-bus/cities?q=bang', { method: 'POST' });
      expect(res.status).to.equal(401);
    });

    it('when the suspended agent’s key is also revoked, then 401 invalid-api-key', async () => {
      const a = await buildAgent(app.service);
      await app.service.core.admin.setAgentStatus.execute(a.agentId, 'SUSPENDED');
      await app.service.core.admin.revokeApiKey.execute(a.keyId, 'leaked');
      expect((await problem(await account({ 'X-API-KEY': a.apiKey }))).reason).to.equal('invalid-api-key');
    });
  });
}
