import { expect } from 'chai';
import { json, twoInstances, type TestApp } from '../support/app.js';
import { buildAgent, eventually, issueKey } from '../support/builders.js';
import { buildSchedule, dateAhead, dropTestSchedules, tripIdOf } from '../support/booking-builders.js';
import { ManualClock } from '../support/clock.js';
import type { BusSchedule } from '../../src/domain/catalogue/catalogue.js';

type Body = Record<string, any>;

/**
 * Rolled and leaked keys on two instances of the service on one database, each with its own key
 * cache and change feed, sharing a clock the test can move.
 */
describe('rolled and leaked keys across two instances', () => {
  const clock = new ManualClock();
  const apps = twoInstances({ clock });
  let schedule: BusSchedule;
  const date = dateAhead(21);

  before(async () => {
    await apps.a.service.core.catalogue.seed.execute();
    schedule = await buildSchedule(apps.a.service.ports.catalogue);
  });
  afterEach(() => clock.reset());
  after(async () => {
    await dropTestSchedules(apps.a.service.db!.knex);
  });

  const status = async (app: TestApp, key: string) =>
    (await app.request('/api/v1/agent/account', { headers: { 'X-API-KEY': key } })).status;
  const post = async (app: TestApp, path: string, body: unknown, key: string): Promise<{ status: number; body: Body }> => {
    const res = await app.request(path, json('POST', body, { 'X-API-KEY': key }));
    return { status: res.status, body: (await res.json()) as Body };
  };
  const roll = async (app: TestApp, key: string, overlapSeconds = 3600) => {
    const r = await post(app, '/api/v1/keys/current/roll', { overlapSeconds }, key);
    expect(r.status).to.equal(201);
    return r.body as { apiKey: string; key: { id: string }; previousKeyValidUntil: string };
  };
  const book = async (app: TestApp, key: string): Promise<string> => {
    const q = await post(app, '/api/v1/express-bus/quotes', { tripId: tripIdOf(schedule, date), passengers: 1 }, key);
    const o = await post(app, '/api/v1/orders', { quoteId: q.body.id, contact: { name: 'N', email: 'n@example.com' } }, key);
    expect(o.status, JSON.stringify(o.body)).to.equal(201);
    return o.body.id as string;
  };

  it('when a key is rolled on A, then both keys work on B until the overlap ends, and the old one on neither after, with no write at that moment', async () => {
    const agent = await buildAgent(apps.a.service);
    expect(await status(apps.b, agent.apiKey)).to.equal(200); // cached on B
    const rolled = await roll(apps.a, agent.apiKey, 120);
    await eventually(async () => (await status(apps.b, rolled.apiKey)) === 200, 1000, 'B accepts the new key');
    expect(await status(apps.b, agent.apiKey)).to.equal(200);
    // Warm both caches, then let the overlap end: nothing is written to the database now.
    expect(await status(apps.a, agent.apiKey)).to.equal(200);
    clock.set(new Date(Date.parse(rolled.previousKeyValidUntil)));
    for (const app of [apps.a, apps.b]) {
      expect(await status(app, agent.apiKey)).to.equal(401);
      expect(await status(app, rolled.apiKey)).to.equal(200);
    }
  });

  it('when a key rolled twice is reported leaked on A, then B refuses all three within a second and freezes their orders', async () => {
    const agent = await buildAgent(apps.a.service);
    const second = await roll(apps.a, agent.apiKey);
    const third = await roll(apps.a, second.apiKey);
    const keys = [agent.apiKey, second.apiKey, third.apiKey];
    // Orders made on B with each key; B's cache now holds all three.
    const orders: string[] = [];
    for (const key of keys) orders.push(await book(apps.b, key));
    for (const key of keys) expect(await status(apps.b, key)).to.equal(200);

    const leak = await post(apps.a, '/api/v1/keys/current/report-leak', {}, agent.apiKey);
    expect(leak.status).to.equal(200);
    const ms = await eventually(
      async () => (await Promise.all(keys.map((k) => status(apps.b, k)))).every((s) => s === 401),
      1000,
      'B refuses all three keys',
    );
    expect(ms).to.be.below(1000);
    for (const key of keys) expect(await status(apps.a, key)).to.equal(401);

    const fresh = await apps.b.service.core.admin.issueApiKey.execute({ agentId: agent.agentId });
    for (const orderId of orders) {
      const r = await post(apps.b, `/api/v1/orders/${orderId}/cancel`, {}, fresh.apiKey);
      expect([r.status, r.body.reason]).to.deep.equal([409, 'booked-with-leaked-key']);
    }
  });

  it('when a key is used on B, then after B writes its uses, A lists the key’s lastUsedAt', async () => {
    const agent = await buildAgent(apps.a.service);
    const reader = await issueKey(apps.a.service, agent.agentId);
    const lastUsedOnA = async () => {
      // Listed on A with the agent's other key, so A has noted no use of this one itself.
      const res = await apps.a.request('/api/v1/keys', { headers: { 'X-API-KEY': reader.apiKey } });
      return ((await res.json()) as { data: Body[] }).data.find((k) => k.id === agent.keyId)!.lastUsedAt as string | null;
    };
    expect(await lastUsedOnA()).to.equal(null);
    const before = Date.now();
    expect(await status(apps.b, agent.apiKey)).to.equal(200);
    expect(await lastUsedOnA()).to.equal(null);
    await apps.b.service.ports.keyUsage.flush();
    expect(Date.parse((await lastUsedOnA())!)).to.be.at.least(before - 1);
  });
});
