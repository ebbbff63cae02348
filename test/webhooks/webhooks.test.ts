import { expect } from 'chai';
import { capturedLog, json, startTestApp, type TestApp } from '../support/app.js';
import { buildAgent, eventually, issueKey, unique, type TestAgent } from '../support/builders.js';
import { buildSchedule, dateAhead, dropTestSchedules, tripIdOf } from '../support/booking-builders.js';
import { databaseKind } from '../support/database.js';
import { bearer, buildTenant, delegatedToken, machineToken } from '../support/wallet-builders.js';
import { startReceiver, verified, type Receiver } from '../support/webhook-receiver.js';
import type { BusSchedule } from '../../src/domain/catalogue/catalogue.js';

type Body = Record<string, any>;

/** Receivers on 127.0.0.1 over http: both relaxations on; a short retry schedule. */
const DEV_ENV = { WEBHOOK_ALLOW_INSECURE: 'on', WEBHOOK_ALLOW_PRIVATE: 'on', WEBHOOK_RETRY_SCHEDULE: '1,1', WEBHOOK_POLL_MS: '100' };

for (const mode of ['database', 'memory'] as const) {
  describe(`webhooks over HTTP (${mode})`, function () {
    this.timeout(30_000);
    let app: TestApp;
    let receiver: Receiver;
    let schedule: BusSchedule;
    const date = dateAhead(21);
    const contact = { name: 'Somchai P.', email: 'somchai@example.com' };

    const call = async (path: string, init: RequestInit = {}): Promise<{ status: number; body: Body }> => {
      const res = await app.request(path, init);
      const text = await res.text();
      return { status: res.status, body: text === '' ? {} : (JSON.parse(text) as Body) };
    };
    const asAgent = (a: TestAgent) => ({ 'X-API-KEY': a.apiKey });
    const register = (a: TestAgent, body: unknown) => call('/api/v1/webhook-endpoints', json('POST', body, asAgent(a)));
    const busOrder = async (a: TestAgent, s: BusSchedule = schedule): Promise<{ status: number; body: Body }> => {
      const quote = await call('/api/v1/express-bus/quotes', json('POST', { tripId: tripIdOf(s, date), passengers: 1 }, asAgent(a)));
      expect(quote.status, JSON.stringify(quote.body)).to.equal(201);
      return call('/api/v1/orders', json('POST', { quoteId: quote.body.id, contact }, asAgent(a)));
    };

    before(async () => {
      app = await startTestApp({ env: DEV_ENV, ...(mode === 'memory' ? { memory: true } : {}) });
      await app.service.core.catalogue.seed.execute();
      schedule = await buildSchedule(app.service.ports.catalogue, { seatCapacity: 50 });
    });
    beforeEach(async () => {
      receiver = await startReceiver();
    });
    afterEach(async () => {
      await receiver.close();
    });
    after(async () => {
      if (mode === 'database') await dropTestSchedules(app.service.db!.knex);
      await app.stop();
    });

    describe('POST /api/v1/webhook-endpoints', () => {
      it('when an agent registers, then 201 with a whsec_ secret shown once; reads never show it, nor does storage hold it in plaintext', async () => {
        const agent = await buildAgent(app.service);
        const created = await register(agent, { url: receiver.url, events: ['order.confirmed'], description: 'ops' });
        expect(created.status, JSON.stringify(created.body)).to.equal(201);
        expect(created.body).to.include({ url: receiver.url, status: 'active', description: 'ops' });
        expect(created.body.events).to.deep.equal(['order.confirmed']);
        expect(created.body.secret).to.match(/^whsec_[A-Za-z0-9+/]{43}=$/);
        expect(Buffer.from(created.body.secret.slice(6), 'base64')).to.have.length(32);
        const read = await call(`/api/v1/webhook-endpoints/${created.body.id}`, { headers: asAgent(agent) });
        expect(read.status).to.equal(200);
        expect(read.body).to.not.have.property('secret');
        const list = await call('/api/v1/webhook-endpoints', { headers: asAgent(agent) });
        expect(list.body.data.map((e: Body) => e.id)).to.deep.equal([created.body.id]);
        expect(list.body.nextCursor).to.equal(null);
        expect(JSON.stringify(list.body)).to.not.include(created.body.secret.slice(6));
        if (mode === 'database') {
          const rows = await app.service.db!.knex('webhook_endpoints').where({ id: created.body.id });
          expect(JSON.stringify(rows)).to.not.include(created.body.secret.slice(6));
        }
      });

      it('when an agent asks for a tenant event or none, then 400 invalid-request', async () => {
        const agent = await buildAgent(app.service);
        expect((await register(agent, { url: receiver.url, events: ['transaction.created'] })).status).to.equal(400);
        expect((await register(agent, { url: receiver.url, events: [] })).body.reason).to.equal('invalid-request');
      });

      it('when an owner has the maximum of endpoints, then the next is 409 too-many-webhook-endpoints', async () => {
        const agent = await buildAgent(app.service);
        for (let i = 0; i < 10; i++)
          expect((await register(agent, { url: receiver.url, events: ['order.confirmed'] })).status).to.equal(201);
        const over = await register(agent, { url: receiver.url, events: ['order.confirmed'] });
        expect(over.status).to.equal(409);
        expect(over.body.reason).to.equal('too-many-webhook-endpoints');
        const page = await call('/api/v1/webhook-endpoints?limit=4', { headers: asAgent(agent) });
        expect(page.body.data).to.have.length(4);
        const next = await call(`/api/v1/webhook-endpoints?limit=100&cursor=${page.body.nextCursor}`, { headers: asAgent(agent) });
        expect(next.body.data).to.have.length(6);
      });

      it('when a URL is over 2048 characters, then 400', async () => {
        const agent = await buildAgent(app.service);
        expect((await register(agent, { url: `${receiver.url}?${'a'.repeat(2100)}`, events: ['order.confirmed'] })).status).to.equal(400);
      });
    });

    describe('agent events', () => {
      it('when an order is placed and cancelled and a key revoked, then each event arrives once and verifies with standardwebhooks', async () => {
        const agent = await buildAgent(app.service);
        const other = await issueKey(app.service, agent.agentId);
        const { body: ep } = await register(agent, {
          url: receiver.url,
          events: ['order.confirmed', 'order.cancelled', 'api_key.revoked'],
        });
        const placed = await busOrder(agent);
        expect(placed.status).to.equal(201);
        const cancelled = await call(`/api/v1/orders/${placed.body.id}/cancel`, json('POST', {}, asAgent(agent)));
        expect(cancelled.status).to.equal(200);
        await app.service.core.admin.revokeApiKey.execute(other.keyId, 'operator');
        // Revoking again changes nothing: no second event.
        await app.service.core.admin.revokeApiKey.execute(other.keyId, 'operator');
        await eventually(async () => receiver.received.length >= 3, 10_000, 'three deliveries');
        await new Promise((r) => setTimeout(r, 300));
        const events = receiver.received.map((w) => verified(ep.secret, w));
        expect(events.map((e) => e.type).sort()).to.deep.equal(['api_key.revoked', 'order.cancelled', 'order.confirmed']);
        const byType = Object.fromEntries(events.map((e) => [e.type, e]));
        expect(byType['order.confirmed']!.data).to.deep.equal({ ...placed.body, previousStatus: null });
        expect(byType['order.cancelled']!.data).to.deep.equal({ ...cancelled.body, previousStatus: 'CONFIRMED' });
        expect(byType['api_key.revoked']!.data).to.include({ id: other.keyId, status: 'REVOKED', revokedReason: 'operator' });
        expect(byType['api_key.revoked']!.data).to.not.have.property('hash');
        for (const w of receiver.received) {
          expect(w.headers['content-type']).to.equal('application/json');
          expect(w.headers['webhook-id']).to.match(/^evt_/);
          expect(Math.abs(Number(w.headers['webhook-timestamp']) - Date.now() / 1000)).to.be.below(30);
        }
      });

      it('when an endpoint subscribes to some events, then only those are sent', async () => {
        const agent = await buildAgent(app.service);
        await register(agent, { url: receiver.url, events: ['order.cancelled'] });
        const placed = await busOrder(agent);
        await new Promise((r) => setTimeout(r, 500));
        expect(receiver.received).to.have.length(0);
        await call(`/api/v1/orders/${placed.body.id}/cancel`, json('POST', {}, asAgent(agent)));
        await eventually(async () => receiver.received.length === 1, 10_000, 'the cancellation');
        expect(JSON.parse(receiver.received[0]!.body).type).to.equal('order.cancelled');
      });

      it('when another agent acts, then nothing reaches this agent’s endpoint', async () => {
        const agent = await buildAgent(app.service);
        const stranger = await buildAgent(app.service);
        await register(agent, { url: receiver.url, events: ['order.confirmed'] });
        expect((await busOrder(stranger)).status).to.equal(201);
        await new Promise((r) => setTimeout(r, 500));
        expect(receiver.received).to.have.length(0);
      });

      it('when an order rolls back (the seats ran out), then no event is sent for it', async () => {
        const agent = await buildAgent(app.service);
        const tight = await buildSchedule(app.service.ports.catalogue, { seatCapacity: 1 });
        const { body: ep } = await register(agent, { url: receiver.url, events: ['order.confirmed'] });
        const q1 = await call('/api/v1/express-bus/quotes', json('POST', { tripId: tripIdOf(tight, date), passengers: 1 }, asAgent(agent)));
        const q2 = await call('/api/v1/express-bus/quotes', json('POST', { tripId: tripIdOf(tight, date), passengers: 1 }, asAgent(agent)));
        expect((await call('/api/v1/orders', json('POST', { quoteId: q1.body.id, contact }, asAgent(agent)))).status).to.equal(201);
        const refused = await call('/api/v1/orders', json('POST', { quoteId: q2.body.id, contact }, asAgent(agent)));
        expect(refused.body.reason).to.equal('sold-out');
        await eventually(async () => receiver.received.length >= 1, 10_000, 'the first order');
        await new Promise((r) => setTimeout(r, 500));
        expect(receiver.received.map((w) => verified(ep.secret, w).data.quoteId)).to.deep.equal([q1.body.id]);
        const deliveries = await call(`/api/v1/webhook-endpoints/${ep.id}/deliveries`, { headers: asAgent(agent) });
        expect(deliveries.body.data).to.have.length(1);
        if (mode === 'database') {
          const stored = await app.service
            .db!.knex('webhook_events')
            .where({ owner_id: agent.agentId, type: 'order.confirmed' })
            .select('body');
          expect(stored.map((r: { body: string }) => JSON.parse(r.body).data.quoteId)).to.deep.equal([q1.body.id]);
        }
      });
    });

    describe('tenant events', () => {
      it('when users are created and money moves, then each event arrives and verifies with standardwebhooks', async () => {
        const tenant = await buildTenant(app.service);
        const machine = await machineToken(app, tenant);
        const reg = await call(
          '/webhook-endpoints',
          json('POST', { url: receiver.url, events: ['transaction.created', 'wallet_user.created'] }, bearer(machine)),
        );
        expect(reg.status, JSON.stringify(reg.body)).to.equal(201);
        const created = await call('/users', json('POST', { externalUserRef: `ref-${unique()}` }, bearer(machine)));
        const payer = await delegatedToken(app, machine);
        await delegatedToken(app, machine, payer.externalUserRef); // second use: no new user, no event
        const topUp = await call(`/users/${payer.userId}/top-ups`, json('POST', { amount: 10_000, reference: 'T-1' }, bearer(machine)));
        const payment = await call('/me/payments', json('POST', { amount: 3_000, reference: 'P-1' }, bearer(payer.token)));
        const transfer = await call('/me/transfers', json('POST', { toUserId: created.body.id, amount: 1_000 }, bearer(payer.token)));
        const refund = await call(`/transactions/${payment.body.id}/refunds`, json('POST', { amount: 500 }, bearer(machine)));
        for (const r of [created, topUp, payment, transfer, refund]) expect(r.status, JSON.stringify(r.body)).to.equal(201);
        await eventually(async () => receiver.received.length >= 6, 10_000, 'six deliveries');
        await new Promise((r) => setTimeout(r, 300));
        const events = receiver.received.map((w) => verified(reg.body.secret, w));
        expect(events).to.have.length(6);
        const users = events
          .filter((e) => e.type === 'wallet_user.created')
          .map((e) => e.data.id)
          .sort();
        expect(users).to.deep.equal([created.body.id, payer.userId].sort());
        const txns = events.filter((e) => e.type === 'transaction.created');
        // Each event carries the transaction exactly as the API answers it, its `livemode` included.
        for (const t of [topUp, payment, transfer, refund]) {
          expect(t.body.livemode).to.equal(true);
          expect(txns.find((e) => e.data.id === t.body.id)?.data).to.deep.equal(t.body);
        }
      });

      it('when a user token calls the webhook routes, then 403 machine-token-required', async () => {
        const tenant = await buildTenant(app.service);
        const machine = await machineToken(app, tenant);
        const user = await delegatedToken(app, machine);
        const res = await call('/webhook-endpoints', { headers: bearer(user.token) });
        expect(res.status).to.equal(403);
        expect(res.body.reason).to.equal('machine-token-required');
      });

      it('when a tenant asks for an agent event, then 400', async () => {
        const tenant = await buildTenant(app.service);
        const machine = await machineToken(app, tenant);
        const res = await call('/webhook-endpoints', json('POST', { url: receiver.url, events: ['order.confirmed'] }, bearer(machine)));
        expect(res.status).to.equal(400);
      });
    });

    describe('retries', () => {
      it('when the receiver answers 500 twice then 200, then it sees three attempts with one webhook-id and the delivery is delivered', async () => {
        const agent = await buildAgent(app.service);
        const { body: ep } = await register(agent, { url: receiver.url, events: ['order.confirmed'] });
        receiver.statuses = [500, 500];
        await busOrder(agent);
        await eventually(async () => receiver.received.length >= 3, 15_000, 'three attempts');
        await new Promise((r) => setTimeout(r, 1500));
        expect(receiver.received).to.have.length(3);
        expect(new Set(receiver.received.map((w) => w.headers['webhook-id'])).size).to.equal(1);
        for (const w of receiver.received) verified(ep.secret, w);
        const { body } = await call(`/api/v1/webhook-endpoints/${ep.id}/deliveries`, { headers: asAgent(agent) });
        expect(body.data).to.have.length(1);
        expect(body.data[0]).to.include({
          status: 'delivered',
          attempts: 3,
          lastStatusCode: 200,
          nextAttemptAt: null,
          type: 'order.confirmed',
        });
        expect(body.data[0].eventId).to.equal(receiver.received[0]!.headers['webhook-id']);
      });

      it('when every attempt fails, then the delivery is failed after the schedule, and a retry on demand (202) sends it again', async () => {
        const agent = await buildAgent(app.service);
        const { body: ep } = await register(agent, { url: receiver.url, events: ['order.confirmed'] });
        receiver.fallback = 503;
        await busOrder(agent);
        const deliveries = async () =>
          (await call(`/api/v1/webhook-endpoints/${ep.id}/deliveries`, { headers: asAgent(agent) })).body.data as Body[];
        await eventually(async () => (await deliveries())[0]?.status === 'failed', 15_000, 'failed');
        expect((await deliveries())[0]).to.include({ attempts: 3, lastStatusCode: 503, nextAttemptAt: null });
        expect(receiver.received).to.have.length(3);
        receiver.fallback = 204;
        const id = (await deliveries())[0]!.id;
        const retry = await call(`/api/v1/webhook-endpoints/${ep.id}/deliveries/${id}/retry`, { method: 'POST', headers: asAgent(agent) });
        expect(retry.status).to.equal(202);
        await eventually(async () => (await deliveries())[0]?.status === 'delivered', 10_000, 'delivered after the retry');
        expect(receiver.received).to.have.length(4);
        expect(new Set(receiver.received.map((w) => w.headers['webhook-id'])).size).to.equal(1);
      });
    });

    describe('ownership and deletion', () => {
      it('when another agent names an endpoint or a delivery, then 404, and nothing changes', async () => {
        const agent = await buildAgent(app.service);
        const stranger = await buildAgent(app.service);
        const { body: ep } = await register(agent, { url: receiver.url, events: ['order.confirmed'] });
        await busOrder(agent);
        await eventually(async () => receiver.received.length === 1, 10_000, 'delivery');
        const { body: deliveries } = await call(`/api/v1/webhook-endpoints/${ep.id}/deliveries`, { headers: asAgent(agent) });
        const dlv = deliveries.data[0].id as string;
        const as = asAgent(stranger);
        for (const [method, path] of [
          ['GET', `/api/v1/webhook-endpoints/${ep.id}`],
          ['DELETE', `/api/v1/webhook-endpoints/${ep.id}`],
          ['GET', `/api/v1/webhook-endpoints/${ep.id}/deliveries`],
          ['POST', `/api/v1/webhook-endpoints/${ep.id}/deliveries/${dlv}/retry`],
        ] as const) {
          const res = await call(path, { method, headers: as });
          expect(res.status, `${method} ${path}`).to.equal(404);
          expect(res.body.reason).to.equal('webhook-endpoint-not-found');
        }
        const tenant = await buildTenant(app.service);
        const machine = await machineToken(app, tenant);
        expect((await call(`/webhook-endpoints/${ep.id}`, { headers: bearer(machine) })).status).to.equal(404);
        expect(
          (await call(`/api/v1/webhook-endpoints/${ep.id}/deliveries/dlv_nope/retry`, { method: 'POST', headers: asAgent(agent) })).body
            .reason,
        ).to.equal('webhook-delivery-not-found');
        expect((await call(`/api/v1/webhook-endpoints/${ep.id}`, { headers: asAgent(agent) })).status).to.equal(200);
      });

      it('when an endpoint is deleted, then 204 and no further deliveries', async () => {
        const agent = await buildAgent(app.service);
        const { body: ep } = await register(agent, { url: receiver.url, events: ['order.confirmed'] });
        const del = await call(`/api/v1/webhook-endpoints/${ep.id}`, { method: 'DELETE', headers: asAgent(agent) });
        expect(del.status).to.equal(204);
        await busOrder(agent);
        await new Promise((r) => setTimeout(r, 500));
        expect(receiver.received).to.have.length(0);
        expect((await call(`/api/v1/webhook-endpoints/${ep.id}`, { headers: asAgent(agent) })).status).to.equal(404);
      });
    });

    describe('several instances', () => {
      let second: TestApp;
      before(async function () {
        // Two services of one process on one database; in memory each has its own store.
        if (mode === 'memory') this.skip();
        second = await startTestApp({ env: DEV_ENV });
      });
      after(async () => second?.stop());

      it('when two instances run workers on one database, then each event is delivered exactly once', async function () {
        if ((await databaseKind()) !== 'postgres') this.skip(); // PGlite: one connection, no contention to show
        const tenant = await buildTenant(app.service);
        const machine = await machineToken(app, tenant);
        const { body: ep } = await call(
          '/webhook-endpoints',
          json('POST', { url: receiver.url, events: ['transaction.created'] }, bearer(machine)),
        );
        const user = await delegatedToken(app, machine);
        const ids: string[] = [];
        await Promise.all(
          Array.from({ length: 40 }, async (_, i) => {
            const target = i % 2 === 0 ? app : second;
            const res = await target.request(
              `/users/${user.userId}/top-ups`,
              json('POST', { amount: 100, reference: `R-${i}` }, bearer(machine)),
            );
            ids.push(((await res.json()) as Body).id);
          }),
        );
        await eventually(async () => receiver.received.length >= 40, 20_000, 'forty deliveries');
        await new Promise((r) => setTimeout(r, 1000));
        expect(receiver.received).to.have.length(40);
        const got = receiver.received.map((w) => verified(ep.secret, w).data.id as string);
        expect(new Set(got).size).to.equal(40);
        expect([...got].sort()).to.deep.equal([...ids].sort());
        const { body } = await call(`/webhook-endpoints/${ep.id}/deliveries?limit=100`, { headers: bearer(machine) });
        expect(body.data.every((d: Body) => d.status === 'delivered' && d.attempts === 1)).to.equal(true);
      });
    });
  });
}

describe('webhook URL safety over HTTP (settings off)', () => {
  let app: TestApp;
  before(async () => {
    app = await startTestApp({ env: { WEBHOOK_ALLOW_INSECURE: 'off', WEBHOOK_ALLOW_PRIVATE: 'off' } });
  });
  after(async () => app.stop());

  for (const url of [
    'http://hooks.example.com/in',
    'https://127.0.0.1/in',
    'https://localhost/in',
    'https://10.1.2.3/in',
    'https://192.168.1.10/in',
    'https://172.16.0.1/in',
    'https://169.254.169.254/latest/meta-data',
    'https://100.64.0.1/in',
    'https://[::1]/in',
    'https://[fd00::1]/in',
    'https://[::ffff:127.0.0.1]/in',
    'https://[::127.0.0.1]/in',
    'https://[::a00:1]/in',
    'https://168.63.129.16/in',
    'https://100.100.100.200/latest/meta-data',
    'https://192.0.0.192/opc/v1/instance/',
    'https://[fd00:ec2::254]/latest/meta-data',
    'https://[64:ff9b::a9fe:a9fe]/in',
    'https://0.0.0.0/in',
    'https://user:pass@93.184.216.34/in',
    'ftp://93.184.216.34/in',
    'not a url',
  ]) {
    it(`when ${url} is registered, then 400 invalid-webhook-url`, async () => {
      const agent = await buildAgent(app.service);
      const res = await app.request(
        '/api/v1/webhook-endpoints',
        json('POST', { url, events: ['order.confirmed'] }, { 'X-API-KEY': agent.apiKey }),
      );
      expect(res.status).to.equal(400);
      expect(((await res.json()) as Body).reason).to.equal('invalid-webhook-url');
    });
  }

  it('when a public https address is registered, then 201', async () => {
    const agent = await buildAgent(app.service);
    const res = await app.request(
      '/api/v1/webhook-endpoints',
      json('POST', { url: 'https://93.184.216.34/in', events: ['order.confirmed'] }, { 'X-API-KEY': agent.apiKey }),
    );
    expect(res.status).to.equal(201);
    // Nothing is sent to it in this test: the agent places no order.
    await app.request(`/api/v1/webhook-endpoints/${((await res.json()) as Body).id}`, {
      method: 'DELETE',
      headers: { 'X-API-KEY': agent.apiKey },
    });
  });
});

describe('webhook secrets in logs', () => {
  let app: TestApp;
  let receiver: Receiver;
  let lines: string[] = [];

  before(async () => {
    const captured = capturedLog();
    lines = captured.lines;
    app = await startTestApp({ env: DEV_ENV, log: captured.log });
    await app.service.core.catalogue.seed.execute();
    receiver = await startReceiver();
  });
  after(async () => {
    await receiver.close();
    await app.stop();
  });

  it('when an endpoint is registered and its deliveries fail and succeed at trace level, then no log line holds the secret', async () => {
    const tenant = await buildTenant(app.service);
    const machine = await machineToken(app, tenant);
    const reg = await app.request(
      '/webhook-endpoints',
      json('POST', { url: receiver.url, events: ['wallet_user.created'] }, bearer(machine)),
    );
    const secret = ((await reg.json()) as Body).secret as string;
    receiver.statuses = [500];
    await app.request('/users', json('POST', { externalUserRef: `ref-${unique()}` }, bearer(machine)));
    await eventually(async () => receiver.received.length >= 2, 10_000, 'a failed and a successful attempt');
    await new Promise((r) => setTimeout(r, 200));
    const logged = lines.join('');
    expect(logged).to.include('webhook attempt failed');
    expect(logged).not.to.include(secret.slice(6, 30));
    expect(logged).not.to.include(receiver.received[0]!.headers['webhook-signature']!.slice(3, 30));
  });
});
