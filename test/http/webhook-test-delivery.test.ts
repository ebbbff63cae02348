import { expect } from 'chai';
import { json, startTestApp, type TestApp } from '../support/app.js';
import { buildAgent, eventually, unique, type TestAgent } from '../support/builders.js';
import { bearer, buildTenant, machineToken } from '../support/wallet-builders.js';
import { startReceiver, verified, type Receiver } from '../support/webhook-receiver.js';
import { ORDER_EVENT_OF_STATUS, type OrderStatus } from '../../src/domain/booking/order.js';
import { AGENT_EVENT_TYPES, TENANT_EVENT_TYPES, VOUCHER_REDEEMED } from '../../src/domain/webhooks/events.js';
import { eventBodySchema, WEBHOOK_EVENTS } from '../../src/adapters/http/webhooks/webhooks.operations.js';

type Body = Record<string, any>;

/** Receivers on 127.0.0.1 over http; a short retry schedule. */
const DEV_ENV = { WEBHOOK_ALLOW_INSECURE: 'on', WEBHOOK_ALLOW_PRIVATE: 'on', WEBHOOK_RETRY_SCHEDULE: '1,1', WEBHOOK_POLL_MS: '100' };

for (const mode of ['database', 'memory'] as const) {
  describe(`test deliveries over HTTP (${mode})`, function () {
    this.timeout(60_000);
    let app: TestApp;
    let receiver: Receiver;

    const call = async (path: string, init: RequestInit = {}): Promise<{ status: number; body: Body }> => {
      const res = await app.request(path, init);
      const text = await res.text();
      return { status: res.status, body: text === '' ? {} : (JSON.parse(text) as Body) };
    };
    const asAgent = (a: TestAgent) => ({ 'X-API-KEY': a.apiKey });
    const registered = async (a: TestAgent, events: string[] = ['order.confirmed']) => {
      const r = await call('/api/v1/webhook-endpoints', json('POST', { url: receiver.url, events }, asAgent(a)));
      expect(r.status, JSON.stringify(r.body)).to.equal(201);
      return r.body as { id: string; secret: string };
    };
    const sendTest = (a: TestAgent, endpointId: string, body: unknown) =>
      call(`/api/v1/webhook-endpoints/${endpointId}/test`, json('POST', body, asAgent(a)));

    before(async () => {
      app = await startTestApp({ env: DEV_ENV, ...(mode === 'memory' ? { memory: true } : {}) });
    });
    beforeEach(async () => {
      receiver = await startReceiver();
    });
    afterEach(async () => {
      await receiver.close();
    });
    after(async () => {
      await app.stop();
    });

    it('when a test event is sent again with its Idempotency-Key, then the first delivery answers and nothing more is sent', async () => {
      const agent = await buildAgent(app.service);
      const ep = await registered(agent);
      const headers = { ...asAgent(agent), 'Idempotency-Key': `test-${unique()}` };
      const path = `/api/v1/webhook-endpoints/${ep.id}/test`;
      const first = await call(path, json('POST', { type: 'order.held' }, headers));
      const again = await call(path, json('POST', { type: 'order.held' }, headers));
      expect([first.status, again.status], JSON.stringify(again.body)).to.deep.equal([202, 202]);
      expect(again.body.id).to.equal(first.body.id);
      const other = await call(path, json('POST', { type: 'order.released' }, headers));
      expect([other.status, other.body.reason]).to.deep.equal([422, 'idempotency-key-reused']);
      const deliveries = await call(`/api/v1/webhook-endpoints/${ep.id}/deliveries`, { headers: asAgent(agent) });
      expect((deliveries.body.data as Body[]).map((d) => d.id)).to.deep.equal([first.body.id]);
    });

    it('when a sandbox agent sends a test order event, then its sample order says livemode false', async () => {
      const agent = await buildAgent(app.service, { test: true });
      const ep = await registered(agent);
      const sent = await sendTest(agent, ep.id, { type: 'order.confirmed' });
      expect(sent.status, JSON.stringify(sent.body)).to.equal(202);
      await eventually(async () => receiver.received.length >= 1, 10_000, 'the test delivery');
      const payload = verified(ep.secret, receiver.received[0]!) as Body;
      expect(payload).to.include({ type: 'order.confirmed', test: true });
      expect(payload.data).to.include({ status: 'CONFIRMED', livemode: false });
    });

    it('when an agent sends a test event, then 202 with its delivery, and the endpoint receives it signed with its secret, marked test, with the event id as webhook-id', async () => {
      const agent = await buildAgent(app.service);
      const ep = await registered(agent);
      const sent = await sendTest(agent, ep.id, { type: 'order.cancelled' });
      expect(sent.status, JSON.stringify(sent.body)).to.equal(202);
      expect(sent.body).to.include({ type: 'order.cancelled', status: 'pending', attempts: 0 });
      expect(sent.body.eventId).to.match(/^evt_/);
      await eventually(async () => receiver.received.length >= 1, 10_000, 'the test delivery');
      const [got] = receiver.received;
      const payload = verified(ep.secret, got!) as Body;
      expect(got!.headers['webhook-id']).to.equal(sent.body.eventId);
      expect(payload).to.include({ type: 'order.cancelled', test: true });
      expect(payload.data).to.include({ status: 'CANCELLED', previousStatus: 'CONFIRMED', livemode: true });
      expect(() => verified(`whsec_${Buffer.alloc(32, 1).toString('base64')}`, got!)).to.throw();
      await eventually(
        async () => {
          const list = await call(`/api/v1/webhook-endpoints/${ep.id}/deliveries`, { headers: asAgent(agent) });
          return list.body.data.some((d: Body) => d.id === sent.body.id && d.status === 'delivered' && d.attempts === 1);
        },
        10_000,
        'the test delivery listed as delivered',
      );
    });

    it('when the receiver fails the test delivery, then it is retried like any delivery, with the same webhook-id', async () => {
      receiver.statuses = [500];
      const agent = await buildAgent(app.service);
      const ep = await registered(agent);
      const sent = await sendTest(agent, ep.id, { type: 'order.confirmed' });
      expect(sent.status).to.equal(202);
      await eventually(async () => receiver.received.length >= 2, 10_000, 'the retry');
      expect(receiver.received.map((w) => w.headers['webhook-id'])).to.deep.equal([sent.body.eventId, sent.body.eventId]);
      expect(receiver.received[1]!.body).to.equal(receiver.received[0]!.body);
    });

    it('when a test event is sent, then the feed never lists it, and it is no after position', async () => {
      const agent = await buildAgent(app.service);
      const ep = await registered(agent);
      const sent = await sendTest(agent, ep.id, { type: 'order.confirmed' });
      await eventually(async () => receiver.received.length >= 1, 10_000, 'the test delivery');
      const feed = await call('/api/v1/events?limit=100', { headers: asAgent(agent) });
      expect(feed.status).to.equal(200);
      expect(feed.body.data.map((e: Body) => e.id)).to.not.include(sent.body.eventId);
      expect(feed.body.data.map((e: Body) => e.type)).to.not.include('order.confirmed');
      expect((await call(`/api/v1/events?after=${sent.body.eventId}`, { headers: asAgent(agent) })).status).to.equal(400);
    });

    it('when every agent event type is sent as a test, then each sample is a body of that type as the published webhook schema describes it', async () => {
      const agent = await buildAgent(app.service);
      const ep = await registered(agent);
      for (const type of AGENT_EVENT_TYPES) expect((await sendTest(agent, ep.id, { type })).status, type).to.equal(202);
      await eventually(async () => receiver.received.length >= AGENT_EVENT_TYPES.length, 20_000, 'every sample');
      const payloads = receiver.received.map((w) => verified(ep.secret, w) as Body);
      expect(payloads.map((p) => p.type).sort()).to.deep.equal([...AGENT_EVENT_TYPES].sort());
      for (const p of payloads) {
        expect(p.test, p.type).to.equal(true);
        const spec = WEBHOOK_EVENTS.find((e) => e.type === p.type && e.surface === 'booking');
        if (spec !== undefined) expect(eventBodySchema(spec).safeParse(p).error?.issues, p.type).to.equal(undefined);
        // An order event of a status names that status; a redeemed voucher's order stays CONFIRMED.
        if (p.type.startsWith('order.') && p.type !== VOUCHER_REDEEMED)
          expect(ORDER_EVENT_OF_STATUS[p.data.status as OrderStatus], p.type).to.equal(p.type);
        if (p.type === VOUCHER_REDEEMED) expect(p.data.status).to.equal('CONFIRMED');
      }
    });

    it('when the type is unknown, another surface’s, or missing, then 400; another agent’s endpoint is 404 and nothing is sent', async () => {
      const agent = await buildAgent(app.service);
      const stranger = await buildAgent(app.service);
      const ep = await registered(agent);
      for (const body of [{ type: 'order.nope' }, { type: 'transaction.created' }, {}]) {
        const r = await sendTest(agent, ep.id, body);
        expect(r.status, JSON.stringify(body)).to.equal(400);
        expect(r.body.reason).to.equal('invalid-request');
      }
      const foreign = await sendTest(stranger, ep.id, { type: 'order.confirmed' });
      expect(foreign.status).to.equal(404);
      expect(foreign.body.reason).to.equal('webhook-endpoint-not-found');
      expect((await sendTest(agent, 'whe_01NOSUCHENDPOINT000000000', { type: 'order.confirmed' })).status).to.equal(404);
      await new Promise((r) => setTimeout(r, 500));
      expect(receiver.received).to.have.length(0);
      const list = await call(`/api/v1/webhook-endpoints/${ep.id}/deliveries`, { headers: asAgent(agent) });
      expect(list.body.data).to.deep.equal([]);
    });

    it('when a tenant’s backend sends a test event to its endpoint, then it arrives signed and marked test; another tenant gets 404', async () => {
      const tenant = await buildTenant(app.service);
      const other = await buildTenant(app.service);
      const machine = await machineToken(app, tenant);
      const reg = await call('/webhook-endpoints', json('POST', { url: receiver.url, events: ['wallet_user.created'] }, bearer(machine)));
      expect(reg.status).to.equal(201);
      const sent = await call(`/webhook-endpoints/${reg.body.id}/test`, json('POST', { type: 'transaction.created' }, bearer(machine)));
      expect(sent.status, JSON.stringify(sent.body)).to.equal(202);
      await eventually(async () => receiver.received.length >= 1, 10_000, 'the test delivery');
      const payload = verified(reg.body.secret, receiver.received[0]!) as Body;
      expect(payload).to.include({ type: 'transaction.created', test: true });
      const spec = WEBHOOK_EVENTS.find((e) => e.type === 'transaction.created')!;
      expect(eventBodySchema(spec).safeParse(payload).error?.issues).to.equal(undefined);
      expect(receiver.received[0]!.headers['webhook-id']).to.equal(sent.body.eventId);
      for (const type of TENANT_EVENT_TYPES) {
        const r = await call(`/webhook-endpoints/${reg.body.id}/test`, json('POST', { type }, bearer(machine)));
        expect(r.status, type).to.equal(202);
      }
      await eventually(async () => receiver.received.length >= 1 + TENANT_EVENT_TYPES.length, 20_000, 'every sample');
      const samples = receiver.received.slice(1).map((w) => verified(reg.body.secret, w) as Body);
      expect(samples.map((p) => p.type).sort()).to.deep.equal([...TENANT_EVENT_TYPES].sort());
      for (const p of samples) {
        expect(p.test, p.type).to.equal(true);
        const published = WEBHOOK_EVENTS.find((e) => e.type === p.type && e.surface === 'wallet');
        if (published !== undefined) expect(eventBodySchema(published).safeParse(p).error?.issues, p.type).to.equal(undefined);
      }
      expect(
        (await call(`/webhook-endpoints/${reg.body.id}/test`, json('POST', { type: 'order.confirmed' }, bearer(machine)))).status,
      ).to.equal(400);
      const foreign = await call(
        `/webhook-endpoints/${reg.body.id}/test`,
        json('POST', { type: 'transaction.created' }, bearer(await machineToken(app, other))),
      );
      expect(foreign.status).to.equal(404);
    });
  });
}
