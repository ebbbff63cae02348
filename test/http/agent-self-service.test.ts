import { expect } from 'chai';
import { json, startTestApp, type TestApp } from '../support/app.js';
import { buildAgent, issueKey, unique, type TestAgent } from '../support/builders.js';
import { buildSchedule, dateAhead, dropTestSchedules, tripIdOf } from '../support/booking-builders.js';
import { ManualClock } from '../support/clock.js';
import type { BusSchedule } from '../../src/domain/catalogue/catalogue.js';

type Body = Record<string, any>;

const KEY_FIELDS = [
  'allowedIps',
  'createdAt',
  'createdByKeyId',
  'expiresAt',
  'id',
  'lastUsedAt',
  'livemode',
  'name',
  'prefix',
  'revokedAt',
  'revokedReason',
  'rolledFromKeyId',
  'scopes',
  'status',
];
const HOUR = 3_600_000;

/**
 * Agents' own keys (list, roll, report a leak), order lookup by reference and cancellation terms,
 * through the real app with a clock the test moves: on the test database and in memory.
 */
for (const mode of ['database', 'memory'] as const) {
  describe(`agent self-service over HTTP (${mode})`, () => {
    const clock = new ManualClock();
    let app: TestApp;
    let schedule: BusSchedule;
    const date = dateAhead(20);
    const contact = { name: 'Malee S.', email: 'malee@example.com' };

    const call = async (path: string, init: RequestInit = {}): Promise<{ status: number; body: Body; headers: Headers }> => {
      const res = await app.request(path, init);
      return { status: res.status, body: (await res.json()) as Body, headers: res.headers };
    };
    const get = (path: string, apiKey: string) => call(path, { headers: { 'X-API-KEY': apiKey } });
    const post = (path: string, body: unknown, apiKey: string, headers: Record<string, string> = {}) =>
      call(path, json('POST', body, { 'X-API-KEY': apiKey, ...headers }));
    const status = async (apiKey: string) => (await app.request('/api/v1/agent/account', { headers: { 'X-API-KEY': apiKey } })).status;
    const roll = async (apiKey: string, body: unknown = {}) => {
      const r = await post('/api/v1/keys/current/roll', body, apiKey);
      expect(r.status, JSON.stringify(r.body)).to.equal(201);
      return r.body as { apiKey: string; key: Body; previousKeyValidUntil: string };
    };
    const book = async (apiKey: string, agentReference?: string): Promise<Body> => {
      const q = await post('/api/v1/express-bus/quotes', { tripId: tripIdOf(schedule, date), passengers: 2 }, apiKey);
      expect(q.status, JSON.stringify(q.body)).to.equal(201);
      const o = await post('/api/v1/orders', { quoteId: q.body.id, contact, ...(agentReference ? { agentReference } : {}) }, apiKey);
      expect(o.status, JSON.stringify(o.body)).to.equal(201);
      return o.body;
    };
    const keysOf = async (apiKey: string): Promise<Body[]> => {
      const r = await get('/api/v1/keys', apiKey);
      expect(r.status).to.equal(200);
      return r.body.data as Body[];
    };

    before(async () => {
      app = await startTestApp({ clock, ...(mode === 'memory' ? { memory: true } : {}) });
      await app.service.core.catalogue.seed.execute();
      schedule = await buildSchedule(app.service.ports.catalogue, { seatCapacity: 40, baseAmount: 12_345 });
    });
    afterEach(() => clock.reset());
    after(async () => {
      if (mode === 'database') await dropTestSchedules(app.service.db!.knex);
      await app.stop();
    });

    describe('GET /api/v1/keys', () => {
      it('when an agent lists its keys, then it sees its own keys only, oldest first, metadata only', async () => {
        const agent = await buildAgent(app.service);
        const second = await issueKey(app.service, agent.agentId);
        await buildAgent(app.service, { channelCode: agent.channelCode });
        const r = await get('/api/v1/keys', agent.apiKey);
        expect(r.status).to.equal(200);
        expect(r.headers.get('cache-control')).to.equal('no-store');
        expect(Object.keys(r.body)).to.deep.equal(['data']);
        expect(r.body.data.map((k: Body) => k.id)).to.have.members([agent.keyId, second.keyId]);
        expect(Date.parse(r.body.data[0].createdAt)).to.be.at.most(Date.parse(r.body.data[1].createdAt));
        for (const k of r.body.data) expect(Object.keys(k).sort()).to.deep.equal(KEY_FIELDS);
        expect(r.body.data.find((k: Body) => k.id === agent.keyId)).to.include({
          prefix: agent.apiKey.slice(0, 8),
          status: 'ACTIVE',
          revokedAt: null,
          revokedReason: null,
          rolledFromKeyId: null,
        });
        const text = JSON.stringify(r.body);
        expect(text).to.not.include(agent.apiKey);
        expect(text).to.not.include(second.apiKey);
      });

      it('when a key is used, then its lastUsedAt moves; a key never used has none', async () => {
        const agent = await buildAgent(app.service);
        const unused = await issueKey(app.service, agent.agentId);
        const before = Date.now();
        expect(await status(agent.apiKey)).to.equal(200);
        await app.service.ports.keyUsage.flush();
        const listed = await keysOf(agent.apiKey);
        expect(Date.parse(listed.find((k) => k.id === agent.keyId)!.lastUsedAt)).to.be.at.least(before - 1);
        expect(listed.find((k) => k.id === unused.keyId)).to.include({ lastUsedAt: null });
        // Written to storage, not only held by this instance.
        const stored = await app.service.ports.agentDirectory.listKeys(agent.agentId);
        expect(stored.find((k) => k.key.id === agent.keyId)!.lastUsedAt!.getTime()).to.be.at.least(before - 1);
      });
    });

    describe('POST /api/v1/keys/current/roll', () => {
      it('when a key is rolled, then both keys work until the overlap ends, and only the new one after', async () => {
        const agent = await buildAgent(app.service, { expiresInDays: 30 });
        const rolled = await roll(agent.apiKey, { overlapSeconds: 600 });
        expect(rolled.apiKey).to.match(/^pbk_/);
        expect(Object.keys(rolled.key).sort()).to.deep.equal(KEY_FIELDS);
        expect(rolled.key).to.include({ status: 'ACTIVE', rolledFromKeyId: agent.keyId, prefix: rolled.apiKey.slice(0, 8) });
        const listed = await keysOf(rolled.apiKey);
        // The old key shows when it stops; the new key keeps the old one's expiry.
        expect(listed[0]).to.include({ id: agent.keyId, status: 'ACTIVE', expiresAt: rolled.previousKeyValidUntil });
        expect(listed[1]!.expiresAt).to.equal(
          listed[0] && (await app.service.ports.agentDirectory.findKey(agent.keyId))!.expiresAt!.toISOString(),
        );
        expect(await status(agent.apiKey)).to.equal(200);
        expect(await status(rolled.apiKey)).to.equal(200);
        // Exactly at the end of the overlap the old key stops; a second before, it still works.
        clock.set(new Date(Date.parse(rolled.previousKeyValidUntil) - 1_000));
        expect(await status(agent.apiKey)).to.equal(200);
        clock.advance(1_000);
        expect(await status(agent.apiKey)).to.equal(401);
        expect(await status(rolled.apiKey)).to.equal(200);
        const after = await keysOf(rolled.apiKey);
        expect(after[0]).to.include({ status: 'REVOKED', revokedReason: 'rotated', revokedAt: rolled.previousKeyValidUntil });
      });

      it('when the overlap is 0, then the old key stops at once; out of range or not a number, 400', async () => {
        const agent = await buildAgent(app.service);
        for (const overlapSeconds of [-1, 86_401, 1.5, '60']) {
          const r = await post('/api/v1/keys/current/roll', { overlapSeconds }, agent.apiKey);
          expect([r.status, r.body.reason], String(overlapSeconds)).to.deep.equal([400, 'invalid-request']);
        }
        const rolled = await roll(agent.apiKey, { overlapSeconds: 0 });
        expect(await status(agent.apiKey)).to.equal(401);
        expect(await status(rolled.apiKey)).to.equal(200);
      });

      it('when the default overlap is used, then the old key works for an hour', async () => {
        const agent = await buildAgent(app.service);
        const rolled = await roll(agent.apiKey);
        expect(Date.parse(rolled.previousKeyValidUntil) - Date.parse(rolled.key.createdAt)).to.equal(HOUR);
      });

      it('when the same Idempotency-Key is retried, then the first answer comes back without the key, and only one key is made', async () => {
        const agent = await buildAgent(app.service);
        const idem = { 'Idempotency-Key': `roll-${unique()}` };
        const first = await post('/api/v1/keys/current/roll', { overlapSeconds: 60 }, agent.apiKey, idem);
        expect(first.status).to.equal(201);
        const again = await post('/api/v1/keys/current/roll', { overlapSeconds: 60 }, agent.apiKey, idem);
        expect(again.status).to.equal(201);
        expect(again.headers.get('idempotent-replayed')).to.equal('true');
        const { apiKey: _shownOnce, ...metadata } = first.body;
        expect(again.body).to.deep.equal(metadata);
        expect((await keysOf(first.body.apiKey)).map((k) => k.id)).to.deep.equal([agent.keyId, first.body.key.id]);
        const other = await post('/api/v1/keys/current/roll', { overlapSeconds: 30 }, agent.apiKey, idem);
        expect([other.status, other.body.reason]).to.deep.equal([422, 'idempotency-key-reused']);
      });

      it('when a key already rolled is rolled again, then 409 key-already-rolled; a revoked key is 401', async () => {
        const agent = await buildAgent(app.service);
        const rolled = await roll(agent.apiKey);
        const again = await post('/api/v1/keys/current/roll', {}, agent.apiKey);
        expect([again.status, again.body.reason]).to.deep.equal([409, 'key-already-rolled']);
        expect((await keysOf(rolled.apiKey)).length).to.equal(2);
        const revoked = await buildAgent(app.service);
        await app.service.core.admin.revokeApiKey.execute(revoked.keyId, 'operator');
        const refused = await post('/api/v1/keys/current/roll', {}, revoked.apiKey);
        expect([refused.status, refused.body.reason]).to.deep.equal([401, 'invalid-api-key']);
      });

      it('when a caller names another key, its own or another agent’s, then no route acts on it', async () => {
        const agent = await buildAgent(app.service);
        const sibling = await issueKey(app.service, agent.agentId);
        const stranger = await buildAgent(app.service);
        for (const target of [sibling.keyId, stranger.keyId]) {
          for (const action of ['roll', 'report-leak']) {
            const r = await post(`/api/v1/keys/${target}/${action}`, {}, agent.apiKey);
            expect([r.status, r.body.reason]).to.deep.equal([404, 'not-found']);
          }
        }
        // A key id in the body is ignored: only the calling key is reported.
        const r = await post('/api/v1/keys/current/report-leak', { keyId: stranger.keyId, key: sibling.keyId }, agent.apiKey);
        expect(r.status).to.equal(200);
        expect(r.body.key.id).to.equal(agent.keyId);
        expect(await status(sibling.apiKey)).to.equal(200);
        expect(await status(stranger.apiKey)).to.equal(200);
        const rolled = await post('/api/v1/keys/current/roll', { keyId: sibling.keyId }, stranger.apiKey);
        expect(rolled.body.key.rolledFromKeyId).to.equal(stranger.keyId);
        expect((await keysOf(sibling.apiKey)).find((k) => k.id === sibling.keyId)).to.include({ status: 'ACTIVE', expiresAt: null });
      });
    });

    describe('POST /api/v1/keys/current/report-leak', () => {
      it('when a key rolled twice is reported, then all three are leaked, refused, and their orders frozen', async () => {
        const agent = await buildAgent(app.service);
        const second = await roll(agent.apiKey);
        const third = await roll(second.apiKey);
        const orders = [await book(agent.apiKey), await book(second.apiKey), await book(third.apiKey)];
        const r = await post('/api/v1/keys/current/report-leak', {}, agent.apiKey);
        expect(r.status).to.equal(200);
        expect(r.body.key).to.include({ id: agent.keyId, status: 'REVOKED', revokedReason: 'leaked' });
        expect(r.body.rolledKeys.map((k: Body) => k.id)).to.have.members([second.key.id, third.key.id]);
        for (const k of r.body.rolledKeys) expect(k).to.include({ status: 'REVOKED', revokedReason: 'leaked' });
        for (const key of [agent.apiKey, second.apiKey, third.apiKey]) expect(await status(key)).to.equal(401);
        const fresh = await issueKey(app.service, agent.agentId);
        for (const order of orders) {
          const preview = await get(`/api/v1/orders/${order.id}/cancellation`, fresh.apiKey);
          expect(preview.body).to.include({ cancellable: false, reason: 'booked-with-leaked-key', refund: null, fee: null });
          const cancel = await post(`/api/v1/orders/${order.id}/cancel`, {}, fresh.apiKey);
          expect([cancel.status, cancel.body.reason]).to.deep.equal([409, 'booked-with-leaked-key']);
        }
        const again = await post('/api/v1/keys/current/report-leak', {}, agent.apiKey);
        expect([again.status, again.body.reason]).to.deep.equal([401, 'invalid-api-key']);
      });

      it('when the newest key of a lineage is reported, then the keys it was rolled from are left as they were', async () => {
        const agent = await buildAgent(app.service);
        const second = await roll(agent.apiKey, { overlapSeconds: 600 });
        const r = await post('/api/v1/keys/current/report-leak', {}, second.apiKey);
        expect(r.body.rolledKeys).to.deep.equal([]);
        expect(await status(second.apiKey)).to.equal(401);
        expect(await status(agent.apiKey)).to.equal(200);
      });
    });

    describe('GET /api/v1/orders?agentReference=', () => {
      it('when orders are filtered by reference, then only the caller’s orders with exactly that reference come back', async () => {
        const agent = await buildAgent(app.service);
        const other = await buildAgent(app.service, { channelCode: agent.channelCode });
        const ref = `ACME-${unique()}`;
        const mine = await book(agent.apiKey, ref);
        await book(agent.apiKey, `${ref}-2`);
        await book(agent.apiKey);
        await book(other.apiKey, ref);
        const r = await get(`/api/v1/orders?agentReference=${encodeURIComponent(ref)}`, agent.apiKey);
        expect(r.status).to.equal(200);
        expect(r.body.data.map((o: Body) => o.id)).to.deep.equal([mine.id]);
        expect(r.body.nextCursor).to.equal(null);
        const lower = await get(`/api/v1/orders?agentReference=${encodeURIComponent(ref.toLowerCase())}`, agent.apiKey);
        expect(lower.body.data).to.deep.equal([]);
        const bad = await get(`/api/v1/orders?agentReference=${'x'.repeat(101)}`, agent.apiKey);
        expect([bad.status, bad.body.reason]).to.deep.equal([400, 'invalid-request']);
      });
    });

    describe('cancellation terms: GET /orders/{id}/cancellation and POST /orders/{id}/cancel', () => {
      // The trip departs at 10:00 Bangkok time (03:00 UTC) on `date`.
      const startsAt = () => new Date(`${date}T03:00:00.000Z`);

      /** At `at`, the preview and then the cancel, on a fresh order. */
      const previewThenCancel = async (agent: TestAgent, at: Date) => {
        const order = await book(agent.apiKey);
        clock.set(at);
        const preview = await get(`/api/v1/orders/${order.id}/cancellation`, agent.apiKey);
        const cancel = await post(`/api/v1/orders/${order.id}/cancel`, {}, agent.apiKey);
        clock.reset();
        return { order, preview, cancel };
      };

      it('when cancelled exactly at the free-cancellation deadline, then the preview and the cancel both say free', async () => {
        const agent = await buildAgent(app.service);
        const deadline = new Date(startsAt().getTime() - 24 * HOUR);
        const { order, preview, cancel } = await previewThenCancel(agent, deadline);
        expect(order.cancellationTerms).to.deep.equal({ freeCancellationHours: 24, lateCancellationFeeBps: 5000 });
        expect(order).to.include({ refund: null, fee: null });
        expect(preview.status).to.equal(200);
        expect(preview.body).to.deep.equal({
          cancellable: true,
          reason: null,
          refund: order.price,
          fee: { amount: 0, currency: 'THB' },
          freeUntil: deadline.toISOString(),
          livemode: true,
        });
        expect(cancel.status).to.equal(200);
        expect(cancel.body).to.deep.include({ status: 'CANCELLED', refund: preview.body.refund, fee: preview.body.fee });
        const read = await get(`/api/v1/orders/${order.id}`, agent.apiKey);
        expect(read.body).to.deep.include({ refund: order.price, fee: { amount: 0, currency: 'THB' } });
        const after = await get(`/api/v1/orders/${order.id}/cancellation`, agent.apiKey);
        expect(after.body).to.include({ cancellable: false, reason: 'order-already-cancelled' });
      });

      it('when cancelled one second after the deadline, then both charge the late fee, rounded once', async () => {
        const agent = await buildAgent(app.service);
        const { order, preview, cancel } = await previewThenCancel(agent, new Date(startsAt().getTime() - 24 * HOUR + 1000));
        // 2 seats × 123.45 THB = 246.90 THB; 50 % = 123.45 THB.
        expect(order.price).to.deep.equal({ amount: 24_690, currency: 'THB' });
        expect(preview.body).to.include({ cancellable: true, reason: null });
        expect(preview.body.fee).to.deep.equal({ amount: 12_345, currency: 'THB' });
        expect(preview.body.refund).to.deep.equal({ amount: 12_345, currency: 'THB' });
        expect([cancel.status, cancel.body.fee, cancel.body.refund]).to.deep.equal([200, preview.body.fee, preview.body.refund]);
      });

      it('when the start has passed, then the preview and the cancel both refuse with cancellation-window-closed', async () => {
        const agent = await buildAgent(app.service);
        const { preview, cancel } = await previewThenCancel(agent, new Date(startsAt().getTime() + 1000));
        expect(preview.body).to.deep.include({ cancellable: false, reason: 'cancellation-window-closed', refund: null, fee: null });
        expect([cancel.status, cancel.body.reason]).to.deep.equal([409, preview.body.reason]);
      });

      it('when the channel’s terms change, then new orders take them and orders already booked keep theirs', async () => {
        const agent = await buildAgent(app.service);
        const before = await book(agent.apiKey);
        await app.service.core.admin.updateChannel.execute(agent.channelCode, { freeCancellationHours: 48, lateCancellationFeeBps: 2_000 });
        let afterOrder: Body = {};
        // The key cache is cleared by the change; book until the new terms are seen.
        for (let i = 0; i < 50 && afterOrder.cancellationTerms?.lateCancellationFeeBps !== 2_000; i++)
          afterOrder = await book(agent.apiKey);
        expect(afterOrder.cancellationTerms).to.deep.equal({ freeCancellationHours: 48, lateCancellationFeeBps: 2_000 });
        expect(before.cancellationTerms).to.deep.equal({ freeCancellationHours: 24, lateCancellationFeeBps: 5_000 });
        clock.set(new Date(startsAt().getTime() - 30 * HOUR));
        const oldPreview = await get(`/api/v1/orders/${before.id}/cancellation`, agent.apiKey);
        const newPreview = await get(`/api/v1/orders/${afterOrder.id}/cancellation`, agent.apiKey);
        // 24 h free: still free 30 h before. 48 h free: 20 % of 246.90 THB = 49.38 THB.
        expect(oldPreview.body.fee.amount).to.equal(0);
        expect(newPreview.body).to.deep.include({
          fee: { amount: 4_938, currency: 'THB' },
          freeUntil: new Date(startsAt().getTime() - 48 * HOUR).toISOString(),
        });
      });

      it('when another agent asks for the preview, then 404 order-not-found', async () => {
        const agent = await buildAgent(app.service);
        const other = await buildAgent(app.service);
        const order = await book(agent.apiKey);
        const r = await get(`/api/v1/orders/${order.id}/cancellation`, other.apiKey);
        expect([r.status, r.body.reason]).to.deep.equal([404, 'order-not-found']);
        const none = await get(`/api/v1/orders/ord_${unique()}/cancellation`, agent.apiKey);
        expect([none.status, none.body.reason]).to.deep.equal([404, 'order-not-found']);
      });
    });
  });
}
