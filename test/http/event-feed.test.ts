import { expect } from 'chai';
import { json, startTestApp, type TestApp } from '../support/app.js';
import { buildAgent, eventually, unique, type TestAgent } from '../support/builders.js';
import { buildSchedule, dateAhead, dropTestSchedules, tripIdOf } from '../support/booking-builders.js';
import { bearer, buildTenant, delegatedToken, machineToken } from '../support/wallet-builders.js';
import { startReceiver, type Receiver } from '../support/webhook-receiver.js';
import type { BusSchedule } from '../../src/domain/catalogue/catalogue.js';

type Body = Record<string, any>;

/** Receivers on 127.0.0.1 over http. */
const DEV_ENV = { WEBHOOK_ALLOW_INSECURE: 'on', WEBHOOK_ALLOW_PRIVATE: 'on', WEBHOOK_RETRY_SCHEDULE: '1,1', WEBHOOK_POLL_MS: '100' };

for (const mode of ['database', 'memory'] as const) {
  describe(`event feed over HTTP (${mode})`, function () {
    this.timeout(60_000);
    let app: TestApp;
    let schedule: BusSchedule;
    const date = dateAhead(23);
    const contact = { name: 'Somchai P.', email: 'somchai@example.com' };

    const call = async (path: string, init: RequestInit = {}): Promise<{ status: number; body: Body }> => {
      const res = await app.request(path, init);
      const text = await res.text();
      return { status: res.status, body: text === '' ? {} : (JSON.parse(text) as Body) };
    };
    const asAgent = (a: TestAgent | string) => ({ 'X-API-KEY': typeof a === 'string' ? a : a.apiKey });
    const busOrder = async (a: TestAgent) => {
      const quote = await call('/api/v1/express-bus/quotes', json('POST', { tripId: tripIdOf(schedule, date), passengers: 1 }, asAgent(a)));
      expect(quote.status, JSON.stringify(quote.body)).to.equal(201);
      const order = await call('/api/v1/orders', json('POST', { quoteId: quote.body.id, contact }, asAgent(a)));
      expect(order.status, JSON.stringify(order.body)).to.equal(201);
      return order.body;
    };
    /**
     * Reads the feed at `path` (its query, if any, kept) page after page with `after` until
     * `done` holds of what was read; a database may serve an event a moment after its commit.
     */
    const readUntil = async (path: string, headers: Record<string, string>, done: (events: Body[]) => boolean): Promise<Body[]> => {
      let events: Body[] = [];
      await eventually(
        async () => {
          events = [];
          let after: string | null = null;
          for (;;) {
            const sep = path.includes('?') ? '&' : '?';
            const page = await call(after === null ? path : `${path}${sep}after=${after}`, { headers });
            expect(page.status, JSON.stringify(page.body)).to.equal(200);
            events.push(...(page.body.data as Body[]));
            if (page.body.nextCursor === null) break;
            expect(page.body.nextCursor).to.equal(events[events.length - 1]!.id);
            after = page.body.nextCursor as string;
          }
          return done(events);
        },
        20_000,
        `the feed at ${path}`,
      );
      return events;
    };

    before(async () => {
      app = await startTestApp({ env: DEV_ENV, ...(mode === 'memory' ? { memory: true } : {}) });
      await app.service.core.catalogue.seed.execute();
      schedule = await buildSchedule(app.service.ports.catalogue, { seatCapacity: 50 });
    });
    after(async () => {
      if (mode === 'database') await dropTestSchedules(app.service.db!.knex);
      await app.stop();
    });

    it('when an agent without any webhook endpoint books and cancels, then its feed has both events, oldest first, with the bodies a delivery would carry', async () => {
      const agent = await buildAgent(app.service);
      const placed = await busOrder(agent);
      const cancelled = await call(`/api/v1/orders/${placed.id}/cancel`, json('POST', {}, asAgent(agent)));
      expect(cancelled.status).to.equal(200);
      const events = await readUntil('/api/v1/events?type=order.confirmed,order.cancelled', asAgent(agent), (e) => e.length >= 2);
      expect(events.map((e) => e.type)).to.deep.equal(['order.confirmed', 'order.cancelled']);
      expect(events[0]).to.deep.equal({
        id: events[0]!.id,
        type: 'order.confirmed',
        timestamp: events[0]!.timestamp,
        data: { ...placed, previousStatus: null },
        livemode: true,
      });
      expect(events[1]!.data).to.deep.equal({ ...cancelled.body, previousStatus: 'CONFIRMED' });
      for (const e of events) expect(e.id).to.match(/^evt_/);
      // Unfiltered, the agent's other events (its key's creation in the trail) are there too, in the same order.
      const all = await readUntil('/api/v1/events', asAgent(agent), (e) => e.length >= 3);
      expect(all.map((e) => e.type)).to.include('api_key.created');
      expect(all.filter((e) => e.type.startsWith('order.')).map((e) => e.id)).to.deep.equal(events.map((e) => e.id));
    });

    it('when an endpoint receives an event, then the feed holds it with the same id as its webhook-id and the same body', async () => {
      const receiver: Receiver = await startReceiver();
      try {
        const agent = await buildAgent(app.service);
        const reg = await call(
          '/api/v1/webhook-endpoints',
          json('POST', { url: receiver.url, events: ['order.confirmed'] }, asAgent(agent)),
        );
        expect(reg.status).to.equal(201);
        await busOrder(agent);
        await eventually(async () => receiver.received.length >= 1, 10_000, 'the delivery');
        const [delivered] = receiver.received;
        const [event] = await readUntil('/api/v1/events?type=order.confirmed', asAgent(agent), (e) => e.length >= 1);
        expect(event!.id).to.equal(delivered!.headers['webhook-id']);
        expect(event).to.deep.equal({ id: event!.id, ...JSON.parse(delivered!.body) });
      } finally {
        await receiver.close();
      }
    });

    it('when the feed is paged with limit, then nextCursor is the last id while more are ready, null at the end, and every event comes once', async () => {
      const agent = await buildAgent(app.service);
      const orders = [await busOrder(agent), await busOrder(agent), await busOrder(agent)];
      const all = await readUntil('/api/v1/events?type=order.confirmed', asAgent(agent), (e) => e.length >= 3);
      expect(all.map((e) => e.data.id)).to.deep.equal(orders.map((o) => o.id));
      const first = await call('/api/v1/events?type=order.confirmed&limit=2', { headers: asAgent(agent) });
      expect(first.body.data.map((e: Body) => e.id)).to.deep.equal(all.slice(0, 2).map((e) => e.id));
      expect(first.body.nextCursor).to.equal(all[1]!.id);
      const second = await call(`/api/v1/events?type=order.confirmed&limit=2&after=${first.body.nextCursor}`, { headers: asAgent(agent) });
      expect(second.body).to.deep.equal({ data: [all[2]], nextCursor: null });
      const caughtUp = await call(`/api/v1/events?type=order.confirmed&after=${all[2]!.id}`, { headers: asAgent(agent) });
      expect(caughtUp.body).to.deep.equal({ data: [], nextCursor: null });
    });

    it('when one agent reads, then it never sees another agent’s events, and naming one of them as after is 400 invalid-request', async () => {
      const agent = await buildAgent(app.service);
      const stranger = await buildAgent(app.service);
      await busOrder(agent);
      const [mine] = await readUntil('/api/v1/events?type=order.confirmed', asAgent(agent), (e) => e.length >= 1);
      await busOrder(stranger);
      const theirs = await readUntil('/api/v1/events', asAgent(stranger), (e) => e.some((x) => x.type === 'order.confirmed'));
      expect(theirs.map((e) => e.id)).to.not.include(mine!.id);
      for (const e of theirs) if (e.type === 'order.confirmed') expect(e.data.id).to.not.equal(mine!.data.id);
      const refused = await call(`/api/v1/events?after=${mine!.id}`, { headers: asAgent(stranger) });
      expect(refused.status).to.equal(400);
      expect(refused.body.reason).to.equal('invalid-request');
      expect(refused.body.errors?.[0]?.path ?? refused.body.details?.errors?.[0]?.path).to.equal('after');
    });

    it('when after is unknown, a type is not the caller’s, or limit is out of range, then 400 invalid-request', async () => {
      const agent = await buildAgent(app.service);
      for (const query of ['after=evt_01NOSUCHEVENT0000000000000', 'type=transaction.created', 'type=order.nope', 'limit=0', 'limit=101']) {
        const r = await call(`/api/v1/events?${query}`, { headers: asAgent(agent) });
        expect(r.status, query).to.equal(400);
        expect(r.body.reason, query).to.equal('invalid-request');
      }
      expect((await call('/api/v1/events?limit=100', { headers: asAgent(agent) })).status).to.equal(200);
    });

    it('when a key lacks events:read, then 403 insufficient-scope naming it; a key with only events:read reads the feed', async () => {
      const agent = await buildAgent(app.service);
      const keyWith = async (scopes: string[]) => {
        const r = await call('/api/v1/keys', json('POST', { name: `k-${unique()}`, scopes }, asAgent(agent)));
        expect(r.status, JSON.stringify(r.body)).to.equal(201);
        return r.body.apiKey as string;
      };
      const orders = await keyWith(['orders:read']);
      const refused = await call('/api/v1/events', { headers: asAgent(orders) });
      expect(refused.status).to.equal(403);
      expect(refused.body).to.include({ reason: 'insufficient-scope', requiredScope: 'events:read' });
      const reader = await keyWith(['events:read']);
      const events = await readUntil('/api/v1/events?type=api_key.created', asAgent(reader), (e) => e.length >= 3);
      expect(events.map((e) => e.type)).to.deep.equal(['api_key.created', 'api_key.created', 'api_key.created']);
    });

    it('when a tenant’s backend reads GET /events, then it gets its users and money movements, never an agent’s events nor another tenant’s; a user token is refused', async () => {
      const tenant = await buildTenant(app.service);
      const other = await buildTenant(app.service);
      const machine = await machineToken(app, tenant);
      const otherMachine = await machineToken(app, other);
      const created = await call('/users', json('POST', { externalUserRef: `ref-${unique()}` }, bearer(machine)));
      expect(created.status).to.equal(201);
      const topUp = await call(`/users/${created.body.id}/top-ups`, json('POST', { amount: 10_000, reference: 'T-1' }, bearer(machine)));
      expect(topUp.status).to.equal(201);
      await call('/users', json('POST', { externalUserRef: `ref-${unique()}` }, bearer(otherMachine)));
      const events = await readUntil('/events?type=wallet_user.created,transaction.created', bearer(machine), (e) => e.length >= 2);
      expect(events.map((e) => [e.type, e.data.id])).to.deep.equal([
        ['wallet_user.created', created.body.id],
        ['transaction.created', topUp.body.id],
      ]);
      // The event carries the transaction exactly as the API answers it, its `livemode` included.
      expect(topUp.body.livemode).to.equal(true);
      expect(events[1]!.data).to.deep.equal(topUp.body);
      const theirs = await readUntil('/events?type=wallet_user.created', bearer(otherMachine), (e) => e.length >= 1);
      expect(theirs).to.have.length(1);
      expect(theirs[0]!.data.id).to.not.equal(created.body.id);
      const cross = await call(`/events?after=${events[0]!.id}`, { headers: bearer(otherMachine) });
      expect(cross.status).to.equal(400);
      expect((await call('/events?type=order.confirmed', { headers: bearer(machine) })).status).to.equal(400);
      const user = await delegatedToken(app, machine);
      const refused = await call('/events', { headers: bearer(user.token) });
      expect(refused.status).to.equal(403);
      expect(refused.body.reason).to.equal('machine-token-required');
      expect((await call('/events')).status).to.equal(401);
    });
  });
}
