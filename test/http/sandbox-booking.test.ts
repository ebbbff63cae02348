import { expect } from 'chai';
import { json, startTestApp, type TestApp } from '../support/app.js';
import { buildAgent, eventually, unique, type TestAgent } from '../support/builders.js';
import { dateAhead } from '../support/booking-builders.js';
import { buildTransferRoute, type TestTransferRoute } from '../../src/testing/fixtures.js';
import { startReceiver } from '../support/webhook-receiver.js';

type Body = Record<string, any>;

/** The booking sandbox (CONTRACT §6.7) through the real app, on the test database and in memory. */
for (const mode of ['database', 'memory'] as const) {
  describe(`the booking sandbox over HTTP (${mode})`, function () {
    this.timeout(60_000);
    let app: TestApp;
    const contact = { name: 'Malee S.', email: 'malee@example.com' };
    let hour = 0;
    /** A pickup time of its own, so that each case has its own stock. */
    const nextPickup = (): string => `${dateAhead(30)}T${String(hour++ % 24).padStart(2, '0')}:00:00.000Z`;

    const call = async (path: string, init: RequestInit = {}): Promise<{ status: number; body: Body }> => {
      const res = await app.request(path, init);
      return { status: res.status, body: (await res.json()) as Body };
    };
    const asKey = (key: string) => ({ 'X-API-KEY': key, 'Idempotency-Key': `k-${unique()}` });
    const quote = (agent: TestAgent, route: TestTransferRoute, pickupAt: string) =>
      call(
        '/api/v1/airport-transfer/quotes',
        json(
          'POST',
          { fromLocationId: route.fromLocationId, toLocationId: route.toLocationId, pickupAt, passengers: 1 },
          asKey(agent.apiKey),
        ),
      );
    const book = async (agent: TestAgent, route: TestTransferRoute, pickupAt: string, hold = false) => {
      const q = await quote(agent, route, pickupAt);
      if (q.status !== 201) return q;
      return call('/api/v1/orders', json('POST', { quoteId: q.body.id, contact, ...(hold ? { hold: {} } : {}) }, asKey(agent.apiKey)));
    };
    const helper = (agent: TestAgent, path: string, body: unknown = {}) =>
      call(`/api/v1/test-helpers/${path}`, json('POST', body, asKey(agent.apiKey)));
    const order = (agent: TestAgent, id: string) => call(`/api/v1/orders/${id}`, { headers: { 'X-API-KEY': agent.apiKey } });
    const eventTypes = async (agent: TestAgent, orderId: string): Promise<string[]> => {
      const feed = await call('/api/v1/events?limit=100', { headers: { 'X-API-KEY': agent.apiKey } });
      expect(feed.status, JSON.stringify(feed.body)).to.equal(200);
      return (feed.body.data as Body[]).filter((e) => e.data?.id === orderId).map((e) => e.type as string);
    };
    /** The order's event types once `count` of them are in the feed (or as they stand after 10 s). */
    const eventTypesWhen = async (agent: TestAgent, orderId: string, count: number): Promise<string[]> => {
      const until = Date.now() + 10_000;
      for (;;) {
        const types = await eventTypes(agent, orderId);
        if (types.length >= count || Date.now() > until) return types;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    };

    let live: TestAgent;
    let sandbox: TestAgent;
    before(async () => {
      app = await startTestApp({
        memory: mode === 'memory',
        env: { WEBHOOK_ALLOW_INSECURE: 'on', WEBHOOK_ALLOW_PRIVATE: 'on', WEBHOOK_POLL_MS: '100' },
      });
      await app.service.core.catalogue.seed.execute();
      live = await buildAgent(app.service);
      sandbox = await buildAgent(app.service, { test: true });
    });
    after(async () => {
      await app?.stop();
    });

    it('when a sandbox agent is made, then its key says so and everything it owns is livemode false; a live one’s is true', async () => {
      expect(sandbox.apiKey).to.match(/^pbk_test_/);
      expect(live.apiKey)
        .to.match(/^pbk_/)
        .and.not.match(/^pbk_test_/);
      const mine = await call('/api/v1/agent/account', { headers: { 'X-API-KEY': sandbox.apiKey } });
      expect([mine.status, mine.body.livemode, mine.body.apiKey.prefix]).to.deep.equal([200, false, sandbox.apiKey.slice(0, 13)]);
      expect((await call('/api/v1/agent/account', { headers: { 'X-API-KEY': live.apiKey } })).body.livemode).to.equal(true);
      const route = await buildTransferRoute(app.service.ports.catalogue, { vehicles: 2 });
      const pickupAt = nextPickup();
      const q = await quote(sandbox, route, pickupAt);
      expect([q.status, q.body.livemode]).to.deep.equal([201, false]);
      const placed = await book(sandbox, route, pickupAt);
      expect([placed.status, placed.body.status, placed.body.livemode]).to.deep.equal([201, 'CONFIRMED', false]);
      const liveOrder = await book(live, route, pickupAt);
      expect([liveOrder.status, liveOrder.body.livemode]).to.deep.equal([201, true]);
      // A sandbox key on a live object's id, and the other way round: 404 as for any other agent's.
      expect((await order(sandbox, liveOrder.body.id)).status).to.equal(404);
      expect((await order(live, placed.body.id)).status).to.equal(404);
    });

    it('when each agent reads its keys, endpoints, deliveries, events, statement and voucher, and gets a delivery, then each carries its mode', async () => {
      const receiver = await startReceiver();
      try {
        const route = await buildTransferRoute(app.service.ports.catalogue, { vehicles: 2 });
        const pickupAt = nextPickup();
        for (const [agent, livemode] of [
          [sandbox, false],
          [live, true],
        ] as const) {
          const read = (path: string, accept = 'application/json') =>
            call(path, { headers: { 'X-API-KEY': agent.apiKey, Accept: accept } });
          const reg = await call(
            '/api/v1/webhook-endpoints',
            json('POST', { url: receiver.url, events: ['order.confirmed'] }, asKey(agent.apiKey)),
          );
          expect([reg.status, reg.body.livemode]).to.deep.equal([201, livemode]);
          const placed = await book(agent, route, pickupAt);
          expect(placed.status, JSON.stringify(placed.body)).to.equal(201);
          await eventually(
            async () => receiver.received.some((r) => JSON.parse(r.body).data.id === placed.body.id),
            10_000,
            'the delivery',
          );
          const delivered = JSON.parse(receiver.received.find((r) => JSON.parse(r.body).data.id === placed.body.id)!.body) as Body;
          expect([delivered.type, delivered.livemode, delivered.data.livemode]).to.deep.equal(['order.confirmed', livemode, livemode]);
          const modes = (items: Body[]) => [...new Set(items.map((i) => i.livemode))];
          expect(modes((await read('/api/v1/keys')).body.data)).to.deep.equal([livemode]);
          expect(modes((await read('/api/v1/webhook-endpoints')).body.data)).to.deep.equal([livemode]);
          expect(modes((await read(`/api/v1/webhook-endpoints/${reg.body.id}/deliveries`)).body.data)).to.deep.equal([livemode]);
          const feed = (await read('/api/v1/events?type=order.confirmed')).body.data as Body[];
          expect(feed.find((e) => e.data.id === placed.body.id)?.livemode).to.equal(livemode);
          const from = new Date(Date.now() - 3_600_000).toISOString();
          const to = new Date(Date.now() + 3_600_000).toISOString();
          const statement = await read(`/api/v1/agent/statement?from=${from}&to=${to}`);
          expect([statement.status, statement.body.livemode]).to.deep.equal([200, livemode]);
          const voucher = await read(`/api/v1/orders/${placed.body.id}/voucher`);
          expect([voucher.status, voucher.body.livemode]).to.deep.equal([200, livemode]);
        }
      } finally {
        await receiver.close();
      }
    });

    it('when the sandbox sells the last vehicle, then live stock is untouched, and the other way round', async () => {
      const route = await buildTransferRoute(app.service.ports.catalogue, { vehicles: 1 });
      const pickupAt = nextPickup();
      const other = await buildAgent(app.service, { test: true });
      const first = await book(sandbox, route, pickupAt);
      expect(first.status, JSON.stringify(first.body)).to.equal(201);
      const sandboxAgain = await book(other, route, pickupAt);
      expect([sandboxAgain.status, sandboxAgain.body.reason]).to.deep.equal([409, 'sold-out']);
      const liveFirst = await book(live, route, pickupAt);
      expect([liveFirst.status, liveFirst.body.livemode], JSON.stringify(liveFirst.body)).to.deep.equal([201, true]);
      const liveAgain = await book(await buildAgent(app.service), route, pickupAt);
      expect([liveAgain.status, liveAgain.body.reason]).to.deep.equal([409, 'sold-out']);
    });

    it('when a sandbox agent books with a live operator, then the operator never sees the order; the test helpers answer for it, with events', async () => {
      const route = await buildTransferRoute(app.service.ports.catalogue, { vehicles: 3, operator: { confirmation: 'on-request' } });
      const operatorKey = (await app.service.core.admin.issueOperatorKey.execute(route.operator.code)).apiKey;
      const opKey = { 'X-API-KEY': operatorKey };
      const pending = await book(sandbox, route, nextPickup());
      expect([pending.status, pending.body.status, pending.body.livemode]).to.deep.equal([201, 'PENDING', false]);
      const listed = await call('/operator/v1/orders?status=PENDING', { headers: opKey });
      expect(listed.status).to.equal(200);
      expect((listed.body.data as Body[]).map((o) => o.id)).to.not.include(pending.body.id);
      expect((await call(`/operator/v1/orders/${pending.body.id}`, { headers: opKey })).status).to.equal(404);
      const refused = await call(`/operator/v1/orders/${pending.body.id}/confirm`, json('POST', { operatorReference: 'X' }, opKey));
      expect([refused.status, refused.body.reason]).to.deep.equal([404, 'order-not-found']);

      const confirmed = await helper(sandbox, `orders/${pending.body.id}/operator-confirm`, { operatorReference: 'SBX-1' });
      expect([confirmed.status, confirmed.body.status, confirmed.body.operatorReference]).to.deep.equal([200, 'CONFIRMED', 'SBX-1']);
      const again = await helper(sandbox, `orders/${pending.body.id}/operator-confirm`);
      expect([again.status, again.body.reason]).to.deep.equal([409, 'order-not-pending']);
      const cancelled = await helper(sandbox, `orders/${pending.body.id}/operator-cancel`);
      expect([cancelled.status, cancelled.body.status, cancelled.body.cancelledBy]).to.deep.equal([200, 'CANCELLED', 'operator']);
      expect(cancelled.body.refund).to.deep.equal(pending.body.price);

      const second = await book(sandbox, route, nextPickup());
      const rejected = await helper(sandbox, `orders/${second.body.id}/operator-reject`, { reason: 'schedule-changed' });
      expect([rejected.status, rejected.body.status, rejected.body.rejectionReason]).to.deep.equal([200, 'REJECTED', 'schedule-changed']);
      const badReason = await helper(sandbox, `orders/${second.body.id}/operator-reject`, { reason: 'bored' });
      expect([badReason.status, badReason.body.reason]).to.deep.equal([400, 'invalid-request']);

      // The feed shows an event once every transaction older than its own has ended (ADR 0011),
      // anywhere on the database server: a moment later on a busy one.
      expect(await eventTypesWhen(sandbox, pending.body.id, 3)).to.have.members(['order.pending', 'order.confirmed', 'order.cancelled']);
      expect(await eventTypesWhen(sandbox, second.body.id, 2)).to.have.members(['order.pending', 'order.rejected']);
    });

    it('when a sandbox hold or pending order is expired by the helper, then it lapses now and its stock is free at once', async () => {
      const route = await buildTransferRoute(app.service.ports.catalogue, { vehicles: 1 });
      const pickupAt = nextPickup();
      const held = await book(sandbox, route, pickupAt, true);
      expect([held.status, held.body.status]).to.deep.equal([201, 'ON_HOLD']);
      expect((await book(sandbox, route, pickupAt)).body.reason).to.equal('sold-out');
      const expired = await helper(sandbox, `orders/${held.body.id}/expire`);
      expect([expired.status, expired.body.status]).to.deep.equal([200, 'EXPIRED']);
      expect(Date.parse(expired.body.holdExpiresAt)).to.be.at.most(Date.now());
      expect((await order(sandbox, held.body.id)).body.status).to.equal('EXPIRED');
      const again = await helper(sandbox, `orders/${held.body.id}/expire`);
      expect([again.status, again.body.reason]).to.deep.equal([409, 'order-has-no-deadline']);
      const next = await book(sandbox, route, pickupAt);
      expect([next.status, next.body.status]).to.deep.equal([201, 'CONFIRMED']);
      expect(await eventTypes(sandbox, held.body.id)).to.have.members(['order.held', 'order.expired']);

      const onRequest = await buildTransferRoute(app.service.ports.catalogue, { vehicles: 1, operator: { confirmation: 'on-request' } });
      const pending = await book(sandbox, onRequest, nextPickup());
      const timedOut = await helper(sandbox, `orders/${pending.body.id}/expire`);
      expect([timedOut.status, timedOut.body.status, timedOut.body.rejectionReason]).to.deep.equal([200, 'REJECTED', 'operator-timeout']);
    });

    it('when a live key calls a test helper, then 404 not-found and its order is unchanged', async () => {
      const route = await buildTransferRoute(app.service.ports.catalogue, { vehicles: 2, operator: { confirmation: 'on-request' } });
      const pending = await book(live, route, nextPickup());
      expect(pending.body.status).to.equal('PENDING');
      for (const [path, body] of [
        [`orders/${pending.body.id}/operator-confirm`, {}],
        [`orders/${pending.body.id}/operator-reject`, { reason: 'sold-out' }],
        [`orders/${pending.body.id}/operator-cancel`, {}],
        [`orders/${pending.body.id}/expire`, {}],
        ['account/fund', { amount: 1_000 }],
      ] as const) {
        const r = await helper(live, path, body);
        expect([r.status, r.body.reason], path).to.deep.equal([404, 'not-found']);
      }
      // A live caller learns nothing of a helper: a bad body or a key without the scopes is 404 as well.
      const narrowLive = await app.service.core.admin.issueApiKey.execute({ agentId: live.agentId, scopes: ['trips:read'] });
      for (const [key, path, body] of [
        [live.apiKey, `orders/${pending.body.id}/operator-reject`, { reason: 'bogus' }],
        [live.apiKey, 'account/fund', { amount: 0 }],
        [live.apiKey, 'account/fund', { amount: 'ten' }],
        [narrowLive.apiKey, 'account/fund', { amount: 1_000 }],
      ] as const) {
        const r = await call(`/api/v1/test-helpers/${path}`, json('POST', body, asKey(key)));
        expect([r.status, r.body.reason], `${path} ${JSON.stringify(body)}`).to.deep.equal([404, 'not-found']);
      }
      expect((await order(live, pending.body.id)).body.status).to.equal('PENDING');
      const missing = await helper(sandbox, 'orders/ord_nope/expire');
      expect([missing.status, missing.body.reason]).to.deep.equal([404, 'order-not-found']);
      const otherAgents = await helper(sandbox, `orders/${pending.body.id}/expire`);
      expect([otherAgents.status, otherAgents.body.reason]).to.deep.equal([404, 'order-not-found']);
    });

    it('when a sandbox key without orders:write calls the helpers, then they work: any key of a test agent may', async () => {
      const narrow = await app.service.core.admin.issueApiKey.execute({ agentId: sandbox.agentId, scopes: ['trips:read'] });
      const funded = await call('/api/v1/test-helpers/account/fund', json('POST', { amount: 1_000 }, asKey(narrow.apiKey)));
      expect([funded.status, funded.body.livemode], JSON.stringify(funded.body)).to.deep.equal([200, false]);
      const asMoney = await call(
        '/api/v1/test-helpers/account/fund',
        json('POST', { amount: { amount: 500, currency: 'THB' } }, asKey(narrow.apiKey)),
      );
      expect(asMoney.status, JSON.stringify(asMoney.body)).to.equal(200);
      expect(asMoney.body.billing.balance.amount - funded.body.billing.balance.amount).to.equal(500);
      const otherCurrency = await call(
        '/api/v1/test-helpers/account/fund',
        json('POST', { amount: { amount: 500, currency: 'USD' } }, asKey(narrow.apiKey)),
      );
      expect([otherCurrency.status, otherCurrency.body.reason]).to.deep.equal([422, 'currency-mismatch']);
      const route = await buildTransferRoute(app.service.ports.catalogue, { vehicles: 2, operator: { confirmation: 'on-request' } });
      const pending = await book(sandbox, route, nextPickup());
      const expired = await call(`/api/v1/test-helpers/orders/${pending.body.id}/expire`, json('POST', {}, asKey(narrow.apiKey)));
      expect([expired.status, expired.body.status]).to.deep.equal([200, 'REJECTED']);
    });

    it('when a prepaid sandbox agent funds itself and books, then its money moves and no live account sees any of it', async () => {
      const agent = await buildAgent(app.service, { test: true });
      await app.service.core.admin.setAgentBilling.execute({ agentId: agent.agentId, mode: 'prepaid' });
      const route = await buildTransferRoute(app.service.ports.catalogue, { vehicles: 2 });
      const short = await book(agent, route, nextPickup());
      expect([short.status, short.body.reason]).to.deep.equal([422, 'insufficient-funds']);
      for (const amount of [0, -5, 1.5]) expect((await helper(agent, 'account/fund', { amount })).status).to.equal(400);
      const funded = await helper(agent, 'account/fund', { amount: 100_000 });
      expect(funded.status, JSON.stringify(funded.body)).to.equal(200);
      expect(funded.body.billing.balance.amount).to.equal(100_000);
      const placed = await book(agent, route, nextPickup());
      expect(placed.status, JSON.stringify(placed.body)).to.equal(201);
      const account = await call('/api/v1/agent/account', { headers: { 'X-API-KEY': agent.apiKey } });
      expect(account.body.billing.balance.amount).to.equal(100_000 - placed.body.price.amount);
      // The live operator is owed nothing for a sandbox sale.
      const from = new Date(Date.now() - 3_600_000);
      const owed = await app.service.core.admin.statements.ofOperator(route.operator.code, from, new Date(Date.now() + 3_600_000));
      const lines = [];
      for await (const line of owed.lines) lines.push(line);
      expect(lines).to.deep.equal([]);
    });

    it('when a sandbox operator runs a route, then live agents cannot book it, and its key sees only sandbox orders', async () => {
      const route = await buildTransferRoute(app.service.ports.catalogue, {
        vehicles: 2,
        operator: { confirmation: 'on-request', livemode: false },
      });
      const issued = await app.service.core.admin.issueOperatorKey.execute(route.operator.code);
      expect(issued.apiKey).to.match(/^pbo_test_/);
      const refused = await quote(live, route, nextPickup());
      expect([refused.status, refused.body.reason]).to.deep.equal([422, 'no-fare']);
      const pending = await book(sandbox, route, nextPickup());
      expect([pending.status, pending.body.status]).to.deep.equal([201, 'PENDING']);
      const listed = await call('/operator/v1/orders', { headers: { 'X-API-KEY': issued.apiKey } });
      expect((listed.body.data as Body[]).map((o) => [o.id, o.livemode])).to.deep.equal([[pending.body.id, false]]);
      const confirmed = await call(
        `/operator/v1/orders/${pending.body.id}/confirm`,
        json('POST', { operatorReference: 'SBX-OP-1' }, { 'X-API-KEY': issued.apiKey }),
      );
      expect([confirmed.status, confirmed.body.status]).to.deep.equal([200, 'CONFIRMED']);
    });
  });
}
