import { expect } from 'chai';
import { json, startTestApp, type TestApp } from '../support/app.js';
import { buildAgent, type TestAgent } from '../support/builders.js';
import { dateAhead } from '../support/booking-builders.js';
import { buildTransferRoute, type TestTransferRoute } from '../../src/testing/fixtures.js';

type Body = Record<string, any>;

/** The operator surface (CONTRACT §6.3) through the real app, on the test database and in memory. */
for (const mode of ['database', 'memory'] as const) {
  describe(`operator surface over HTTP (${mode})`, () => {
    let app: TestApp;
    let agent: TestAgent;
    let route: TestTransferRoute;
    let operatorKey: string;
    let strangerKey: string;
    const pickupAt = `${dateAhead(25)}T03:00:00.000Z`;
    const contact = { name: 'Malee S.', email: 'malee@example.com' };

    const call = async (path: string, init: RequestInit = {}): Promise<{ status: number; body: Body }> => {
      const res = await app.request(path, init);
      return { status: res.status, body: (await res.json()) as Body };
    };
    const asKey = (key: string) => ({ 'X-API-KEY': key });
    const pending = async (): Promise<Body> => {
      const q = await call(
        '/api/v1/airport-transfer/quotes',
        json(
          'POST',
          { fromLocationId: route.fromLocationId, toLocationId: route.toLocationId, pickupAt, passengers: 1 },
          asKey(agent.apiKey),
        ),
      );
      expect(q.status, JSON.stringify(q.body)).to.equal(201);
      const o = await call(
        '/api/v1/orders',
        json('POST', { quoteId: q.body.id, contact, agentReference: 'AG-REF-9' }, asKey(agent.apiKey)),
      );
      expect(o.body.status, JSON.stringify(o.body)).to.equal('PENDING');
      return o.body;
    };

    before(async () => {
      app = await startTestApp({ memory: mode === 'memory' });
      await app.service.core.catalogue.seed.execute();
      route = await buildTransferRoute(app.service.ports.catalogue, { vehicles: 3, operator: { confirmation: 'on-request' } });
      const stranger = await buildTransferRoute(app.service.ports.catalogue, { vehicles: 1, operator: { confirmation: 'on-request' } });
      operatorKey = (await app.service.core.admin.issueOperatorKey.execute(route.operator.code)).apiKey;
      strangerKey = (await app.service.core.admin.issueOperatorKey.execute(stranger.operator.code)).apiKey;
      agent = await buildAgent(app.service);
    });
    after(async () => {
      await app.stop();
    });

    it('when an operator lists and reads its orders, then it sees what runs the trip and nothing commercial; another operator gets 404', async () => {
      const order = await pending();
      const list = await call('/operator/v1/orders?status=PENDING', { headers: asKey(operatorKey) });
      expect(list.status, JSON.stringify(list.body)).to.equal(200);
      const seen = list.body.data.find((o: Body) => o.id === order.id);
      expect(Object.keys(seen).sort()).to.deep.equal([
        'agentName',
        'confirmationDeadline',
        'contact',
        'createdAt',
        'details',
        'id',
        'livemode',
        'operatorReference',
        'passengers',
        'product',
        'status',
      ]);
      const { name } = (await app.service.ports.agentDirectory.findAgent(agent.agentId))!;
      expect(seen).to.include({ status: 'PENDING', agentName: name, confirmationDeadline: order.confirmationDeadline });
      const text = JSON.stringify(list.body);
      for (const secret of [agent.agentId, 'AG-REF-9', String(order.price.amount), order.channel.code]) expect(text).to.not.include(secret);
      expect((await call(`/operator/v1/orders/${order.id}`, { headers: asKey(operatorKey) })).body.id).to.equal(order.id);
      const stranger = await call(`/operator/v1/orders/${order.id}`, { headers: asKey(strangerKey) });
      expect([stranger.status, stranger.body.reason]).to.deep.equal([404, 'order-not-found']);
      expect((await call('/operator/v1/orders', { headers: asKey(strangerKey) })).body.data).to.deep.equal([]);
    });

    it('when the operator confirms with its reference, then the agent sees CONFIRMED with it; a second confirm is 409 order-not-pending', async () => {
      const order = await pending();
      const post = (action: string, body: unknown, key = operatorKey) =>
        call(`/operator/v1/orders/${order.id}/${action}`, json('POST', body, asKey(key)));
      const bad = await post('confirm', { operatorReference: '' });
      expect([bad.status, bad.body.reason]).to.deep.equal([400, 'invalid-request']);
      const stranger = await post('confirm', { operatorReference: 'X-1' }, strangerKey);
      expect([stranger.status, stranger.body.reason]).to.deep.equal([404, 'order-not-found']);
      const confirmed = await post('confirm', { operatorReference: 'SAT-20417' });
      expect(confirmed.status, JSON.stringify(confirmed.body)).to.equal(200);
      expect(confirmed.body).to.include({ status: 'CONFIRMED', operatorReference: 'SAT-20417' });
      const again = await post('confirm', { operatorReference: 'SAT-20418' });
      expect([again.status, again.body.reason]).to.deep.equal([409, 'order-not-pending']);
      const mine = await call(`/api/v1/orders/${order.id}`, { headers: asKey(agent.apiKey) });
      expect(mine.body).to.include({ status: 'CONFIRMED', operatorReference: 'SAT-20417' });
      for (const body of [{}, { reason: '' }, { reason: 12 }, { reason: 'x'.repeat(201) }]) {
        const refused = await post('cancel', body);
        expect([refused.status, refused.body.reason], JSON.stringify(body)).to.deep.equal([400, 'invalid-request']);
      }
      expect((await call(`/api/v1/orders/${order.id}`, { headers: asKey(agent.apiKey) })).body.status).to.equal('CONFIRMED');
      const cancelled = await post('cancel', { reason: 'Vehicle breakdown' });
      expect(cancelled.body.status).to.equal('CANCELLED');
      const refunded = await call(`/api/v1/orders/${order.id}`, { headers: asKey(agent.apiKey) });
      expect(refunded.body).to.deep.include({ status: 'CANCELLED', cancelledBy: 'operator', refund: order.price });
      expect(refunded.body.fee.amount).to.equal(0);
    });

    it('when the operator rejects with a reason, then REJECTED; an unknown reason is 400', async () => {
      const order = await pending();
      const post = (body: unknown) => call(`/operator/v1/orders/${order.id}/reject`, json('POST', body, asKey(operatorKey)));
      const bad = await post({ reason: 'bored' });
      expect([bad.status, bad.body.reason]).to.deep.equal([400, 'invalid-request']);
      expect((await post({ reason: 'schedule-changed' })).body.status).to.equal('REJECTED');
      const mine = await call(`/api/v1/orders/${order.id}`, { headers: asKey(agent.apiKey) });
      expect(mine.body).to.include({ status: 'REJECTED', rejectionReason: 'schedule-changed' });
    });

    it('when an agent key calls the operator surface, or an operator key the booking API, then 401 invalid-api-key', async () => {
      const asAgent = await call('/operator/v1/orders', { headers: asKey(agent.apiKey) });
      expect([asAgent.status, asAgent.body.reason]).to.deep.equal([401, 'invalid-api-key']);
      const asOperator = await call('/api/v1/orders', { headers: asKey(operatorKey) });
      expect([asOperator.status, asOperator.body.reason]).to.deep.equal([401, 'invalid-api-key']);
      const none = await call('/operator/v1/orders');
      expect([none.status, none.body.reason]).to.deep.equal([401, 'missing-api-key']);
    });
  });
}
