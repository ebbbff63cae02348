import { expect } from 'chai';
import { twoInstances, type TestApp } from '../support/app.js';
import { buildAgent, eventually } from '../support/builders.js';

/**
 * Two instances of the service on one database, each with its own key cache and change feed.
 * A change made through one (or by the admin command line) must reach the other within a second.
 */
describe('key cache across two instances', () => {
  const apps = twoInstances();

  const status = async (app: TestApp, key: string) =>
    (await app.request('/api/v1/agent/account', { headers: { 'X-API-KEY': key } })).status;

  it('when a key is revoked on instance A, then instance B refuses it within one second', async () => {
    const agent = await buildAgent(apps.a.service);
    // Warm both caches.
    expect(await status(apps.a, agent.apiKey)).to.equal(200);
    expect(await status(apps.b, agent.apiKey)).to.equal(200);
    expect(await status(apps.b, agent.apiKey)).to.equal(200);
    await apps.a.service.core.admin.revokeApiKey.execute(agent.keyId, 'leaked');
    const ms = await eventually(async () => (await status(apps.b, agent.apiKey)) === 401, 1000, 'B refuses the revoked key');
    expect(ms).to.be.below(1000);
    expect(await status(apps.a, agent.apiKey)).to.equal(401);
  });

  it('when an agent is suspended on A, then B answers 403 within one second, and 200 after re-activation', async () => {
    const agent = await buildAgent(apps.a.service);
    expect(await status(apps.b, agent.apiKey)).to.equal(200);
    await apps.a.service.core.admin.setAgentStatus.execute(agent.agentId, 'SUSPENDED');
    await eventually(async () => (await status(apps.b, agent.apiKey)) === 403, 1000, 'B sees the suspension');
    await apps.a.service.core.admin.setAgentStatus.execute(agent.agentId, 'ACTIVE');
    await eventually(async () => (await status(apps.b, agent.apiKey)) === 200, 1000, 'B sees the re-activation');
  });

  it('when the database is changed directly by SQL, then the trigger still reaches every instance', async () => {
    const agent = await buildAgent(apps.a.service);
    expect(await status(apps.a, agent.apiKey)).to.equal(200);
    expect(await status(apps.b, agent.apiKey)).to.equal(200);
    const knex = apps.a.service.db!.knex;
    await knex('api_keys')
      .where({ id: agent.keyId })
      .update({ expires_at: new Date(Date.now() - 1000) });
    await eventually(
      async () => (await status(apps.a, agent.apiKey)) === 401 && (await status(apps.b, agent.apiKey)) === 401,
      1000,
      'both refuse',
    );
  });
});
