import { expect } from 'chai';
import { json, startTestApp, type TestApp } from '../support/app.js';
import { buildAgent, eventually, issueKey, unique, type TestAgent } from '../support/builders.js';
import { buildSchedule, dateAhead, dropTestSchedules, tripIdOf } from '../support/booking-builders.js';
import { databaseKind } from '../support/database.js';
import { ManualClock } from '../support/clock.js';
import type { BusSchedule } from '../../src/domain/catalogue/catalogue.js';

type Body = Record<string, any>;

/** The booking flow through the real Express app, on the test database and on the in-memory adapters. */
for (const mode of ['database', 'memory'] as const) {
  describe(`booking flow over HTTP (${mode})`, () => {
    let app: TestApp;
    let agent: TestAgent;
    let schedule: Awaited<ReturnType<typeof buildSchedule>>;
    const date = dateAhead(20);
    const contact = { name: 'Malee S.', email: 'malee@example.com', phone: '+66 81 234 5678' };

    const call = async (path: string, init: RequestInit = {}): Promise<{ status: number; body: Body; headers: Headers }> => {
      const res = await app.request(path, init);
      return { status: res.status, body: (await res.json()) as Body, headers: res.headers };
    };
    const as = (a: TestAgent, extra: Record<string, string> = {}) => ({ 'X-API-KEY': a.apiKey, ...extra });
    const get = (path: string, a: TestAgent = agent) => call(path, { headers: as(a) });
    const post = (path: string, body: unknown, a: TestAgent = agent, headers: Record<string, string> = {}) =>
      call(path, json('POST', body, as(a, headers)));
    const busQuote = async (a: TestAgent = agent, passengers = 1, s: BusSchedule = schedule): Promise<Body> => {
      const r = await post('/api/v1/express-bus/quotes', { tripId: tripIdOf(s, date), passengers }, a);
      expect(r.status, JSON.stringify(r.body)).to.equal(201);
      return r.body;
    };
    const book = (quoteId: string, a: TestAgent = agent, headers: Record<string, string> = {}) =>
      post('/api/v1/orders', { quoteId, contact }, a, headers);
    const needsDatabase = async function (this: Mocha.Context) {
      // These tests read stored rows: there are none in memory.
      if (mode === 'memory') this.skip();
    };
    // Time-bound rules (quote expiry, the cancellation window) are met by moving this clock.
    const clock = new ManualClock();
    const needsPostgres = async function (this: Mocha.Context) {
      // PGlite runs one statement at a time and the memory adapters one event at a time: no contention to show.
      if (mode === 'memory' || (await databaseKind()) !== 'postgres') this.skip();
    };
    const knex = () => app.service.db!.knex;

    before(async () => {
      app = await startTestApp({ clock, memory: mode === 'memory' });
      await app.service.core.catalogue.seed.execute();
      schedule = await buildSchedule(app.service.ports.catalogue, { seatCapacity: 30, baseAmount: 20_000 });
      agent = await buildAgent(app.service, { markupBps: 1_000, discountBps: 500 });
    });
    after(async () => {
      if (mode === 'database') await dropTestSchedules(knex());
      await app.stop();
    });

    describe('GET /api/v1/express-bus/trips', () => {
      it('when trips are listed, then each has the contract fields, seats left and the caller’s price per seat', async () => {
        const { status, body } = await get(`/api/v1/express-bus/trips?fromCityId=cty_bangkok&toCityId=cty_pattaya&date=${date}`);
        expect(status).to.equal(200);
        const trip = body.data.find((t: Body) => t.id === tripIdOf(schedule, date));
        expect(trip).to.include({
          fromCityId: 'cty_bangkok',
          toCityId: 'cty_pattaya',
          departsAt: `${date}T03:00:00.000Z`,
          arrivesAt: `${date}T05:30:00.000Z`,
          confirmation: 'instant',
          seatsLeft: 30,
        });
        expect(trip.operator).to.deep.equal({ code: schedule.operator.code, name: schedule.operator.name });
        // 200.00 THB + 10 % − 5 % = 209.00 THB
        expect(trip.price).to.deep.equal({ amount: 20_900, currency: 'THB' });
        expect(body.data.some((t: Body) => t.id.startsWith('trp_bangkok_pattaya_'))).to.equal(true);
      });

      it('when another channel lists the same trips, then it sees its own price', async () => {
        const other = await buildAgent(app.service, { markupBps: 0 });
        const { body } = await get(`/api/v1/express-bus/trips?fromCityId=cty_bangkok&toCityId=cty_pattaya&date=${date}`, other);
        expect(body.data.find((t: Body) => t.id === tripIdOf(schedule, date)).price).to.deep.equal({ amount: 20_000, currency: 'THB' });
      });

      it('when the caller adds price, channel or markup to the query, then they are ignored', async () => {
        const { body } = await get(
          `/api/v1/express-bus/trips?fromCityId=cty_bangkok&toCityId=cty_pattaya&date=${date}&price=1&channel=X&markup=-9000&agentId=agt_x`,
        );
        expect(body.data.find((t: Body) => t.id === tripIdOf(schedule, date)).price.amount).to.equal(20_900);
      });

      it('when the date is missing or not a date, then 400 invalid-request', async () => {
        for (const q of ['fromCityId=cty_bangkok&toCityId=cty_pattaya', `fromCityId=cty_bangkok&toCityId=cty_pattaya&date=2027-02-30`]) {
          const r = await get(`/api/v1/express-bus/trips?${q}`);
          expect(r.status, q).to.equal(400);
          expect(r.body.reason).to.equal('invalid-request');
        }
      });

      it('when the agent is not entitled to express-bus, then 403 not-entitled', async () => {
        const transferOnly = await buildAgent(app.service, { products: ['airport-transfer'] });
        const r = await get(`/api/v1/express-bus/trips?fromCityId=cty_bangkok&toCityId=cty_pattaya&date=${date}`, transferOnly);
        expect(r.status).to.equal(403);
        expect(r.body.reason).to.equal('not-entitled');
      });
    });

    describe('quotes', () => {
      const pickupAt = () => new Date(Date.now() + 2 * 86_400_000).toISOString();

      it('when a transfer is quoted, then 201 with id, product, channel, price, expiry and details; sent prices and channels are ignored', async () => {
        const r = await post('/api/v1/airport-transfer/quotes', {
          fromLocationId: 'loc_bkk',
          toLocationId: 'loc_bkk_silom',
          pickupAt: pickupAt(),
          passengers: 2,
          price: { amount: 1, currency: 'THB' },
          amount: 1,
          currency: 'USD',
          channel: 'CHEAP',
          channelId: 'CHEAP',
          agentId: 'agt_x',
          markup: -10_000,
        });
        expect(r.status).to.equal(201);
        expect(r.body.id).to.match(/^qte_/);
        expect(r.headers.get('location')).to.equal(`/api/v1/quotes/${r.body.id}`);
        expect(r.body).to.deep.include({ product: 'airport-transfer', channel: { code: agent.channelCode } });
        // Sedan BKK ↔ BKK-CITY 1 200.00 THB + 10 % − 5 % = 1 254.00 THB
        expect(r.body.price).to.deep.equal({ amount: 125_400, currency: 'THB' });
        expect(r.body.details).to.include({
          fromLocationId: 'loc_bkk',
          toLocationId: 'loc_bkk_silom',
          passengers: 2,
          vehicleClass: 'sedan',
        });
        const ttl = Date.parse(r.body.expiresAt) - Date.parse(r.body.createdAt);
        expect(ttl).to.equal(900_000);
        expect(JSON.stringify(r.body)).not.to.include(agent.agentId);
      });

      it('when a location is unknown, the zones have no fare, or the pickup is past, then 404, 422 and 400 with their reasons', async () => {
        const cases: Array<[Body, number, string]> = [
          [{ fromLocationId: 'loc_nowhere', toLocationId: 'loc_bkk', pickupAt: pickupAt(), passengers: 1 }, 404, 'location-not-found'],
          [{ fromLocationId: 'loc_bkk', toLocationId: 'loc_hkt_patong', pickupAt: pickupAt(), passengers: 1 }, 422, 'no-fare'],
          [
            { fromLocationId: 'loc_bkk', toLocationId: 'loc_bkk_silom', pickupAt: '2020-01-01T00:00:00Z', passengers: 1 },
            400,
            'invalid-request',
          ],
          [{ fromLocationId: 'loc_bkk', toLocationId: 'loc_bkk_silom', pickupAt: 'tomorrow', passengers: 1 }, 400, 'invalid-request'],
          [{ fromLocationId: 'loc_bkk', toLocationId: 'loc_bkk_silom', pickupAt: pickupAt(), passengers: 0 }, 400, 'invalid-request'],
        ];
        for (const [body, status, reason] of cases) {
          const r = await post('/api/v1/airport-transfer/quotes', body);
          expect([r.status, r.body.reason], JSON.stringify(body)).to.deep.equal([status, reason]);
        }
      });

      it('when the agent is not entitled to the product, then 403 not-entitled', async () => {
        const busOnly = await buildAgent(app.service, { products: ['express-bus'] });
        const r = await post(
          '/api/v1/airport-transfer/quotes',
          { fromLocationId: 'loc_bkk', toLocationId: 'loc_bkk_silom', pickupAt: pickupAt(), passengers: 1 },
          busOnly,
        );
        expect([r.status, r.body.reason]).to.deep.equal([403, 'not-entitled']);
      });

      it('when a bus trip is quoted, then the price is per seat times passengers; unknown trips 404, departed ones 409', async () => {
        const q = await busQuote(agent, 3);
        expect(q).to.deep.include({
          product: 'express-bus',
          channel: { code: agent.channelCode },
          price: { amount: 3 * 20_900, currency: 'THB' },
        });
        expect(q.details).to.deep.include({
          tripId: tripIdOf(schedule, date),
          passengers: 3,
          unitPrice: { amount: 20_900, currency: 'THB' },
        });
        const unknown = await post('/api/v1/express-bus/quotes', { tripId: `trp_nothing_${unique()}`, passengers: 1 });
        expect([unknown.status, unknown.body.reason]).to.deep.equal([404, 'trip-not-found']);
        const departed = await post('/api/v1/express-bus/quotes', { tripId: tripIdOf(schedule, dateAhead(-1)), passengers: 1 });
        expect([departed.status, departed.body.reason]).to.deep.equal([409, 'trip-departed']);
      });

      it('when a quote is read back, then its owner gets it and another agent gets 404 quote-not-found', async () => {
        const q = await busQuote();
        const mine = await get(`/api/v1/quotes/${q.id}`);
        expect(mine.status).to.equal(200);
        expect(mine.body).to.deep.equal(q);
        const other = await buildAgent(app.service, { channelCode: agent.channelCode });
        const theirs = await get(`/api/v1/quotes/${q.id}`, other);
        expect([theirs.status, theirs.body.reason]).to.deep.equal([404, 'quote-not-found']);
      });
    });

    describe('POST /api/v1/orders', () => {
      it('when a quote is booked, then 201 CONFIRMED with the contract fields, and the trip has fewer seats', async () => {
        const s = await buildSchedule(app.service.ports.catalogue, { seatCapacity: 5 });
        const q = await busQuote(agent, 2, s);
        const r = await post('/api/v1/orders', {
          quoteId: q.id,
          contact,
          passengers: [{ name: 'A' }, { name: 'B' }],
          agentReference: 'PO-77',
          price: { amount: 1 },
          channel: 'X',
          agentId: 'agt_x',
        });
        expect(r.status).to.equal(201);
        expect(r.headers.get('location')).to.equal(`/api/v1/orders/${r.body.id}`);
        expect(r.body).to.deep.include({
          status: 'CONFIRMED',
          product: 'express-bus',
          quoteId: q.id,
          agentReference: 'PO-77',
          cancelledAt: null,
        });
        expect(r.body.price).to.deep.equal(q.price);
        expect(r.body.contact).to.deep.equal(contact);
        expect(r.body.passengers).to.deep.equal([{ name: 'A' }, { name: 'B' }]);
        expect(r.body.createdAt).to.be.a('string');
        const trips = await get(`/api/v1/express-bus/trips?fromCityId=cty_bangkok&toCityId=cty_pattaya&date=${date}`);
        expect(trips.body.data.find((t: Body) => t.id === tripIdOf(s, date)).seatsLeft).to.equal(3);
      });

      it('when the order is stored, then it records agent, channel, price and the key that placed it', async function () {
        await needsDatabase.call(this);
        const q = await busQuote();
        const r = await book(q.id);
        const row = await knex()('orders').where({ id: r.body.id }).first();
        expect(row).to.include({ agent_id: agent.agentId, channel_code: agent.channelCode, key_id: agent.keyId, amount: q.price.amount });
      });

      it('when the quote is booked again, then 409 quote-already-booked', async () => {
        const q = await busQuote();
        expect((await book(q.id)).status).to.equal(201);
        const again = await book(q.id);
        expect([again.status, again.body.reason]).to.deep.equal([409, 'quote-already-booked']);
      });

      it('when the contact is missing or the passenger list does not match the quote, then 400 invalid-request', async () => {
        const q = await busQuote(agent, 2);
        const noContact = await post('/api/v1/orders', { quoteId: q.id });
        expect([noContact.status, noContact.body.reason]).to.deep.equal([400, 'invalid-request']);
        const wrongCount = await post('/api/v1/orders', { quoteId: q.id, contact, passengers: [{ name: 'Only one' }] });
        expect([wrongCount.status, wrongCount.body.reason]).to.deep.equal([400, 'invalid-request']);
      });

      it('when another agent books the quote, then 404 quote-not-found', async () => {
        const q = await busQuote();
        const other = await buildAgent(app.service, { channelCode: agent.channelCode });
        const r = await book(q.id, other);
        expect([r.status, r.body.reason]).to.deep.equal([404, 'quote-not-found']);
        expect((await book(q.id)).status).to.equal(201);
      });

      it('when the same Idempotency-Key is retried, then the first order is replayed', async () => {
        const q = await busQuote();
        const key = `order-${unique()}`;
        const first = await book(q.id, agent, { 'Idempotency-Key': key });
        const again = await book(q.id, agent, { 'Idempotency-Key': key });
        expect(first.status).to.equal(201);
        expect(again.status).to.equal(201);
        expect(again.headers.get('idempotent-replayed')).to.equal('true');
        expect(again.body).to.deep.equal(first.body);
      });

      it('when the first attempt placed the order but its instance died before storing the response, then a retry answers that order', async () => {
        const q = await busQuote();
        const key = `order-${unique()}`;
        // The first attempt got as far as the use case, which stores the key on the order; no response was kept.
        const principal = await app.service.core.identity.authenticateAgent.execute(agent.apiKey);
        const placed = await app.service.core.booking.placeOrder.execute(principal, { quoteId: q.id, contact, idempotencyKey: key });
        const retry = await book(q.id, agent, { 'Idempotency-Key': key });
        expect(retry.status).to.equal(201);
        expect(retry.body.id).to.equal(placed.id);
        const orders = await get('/api/v1/orders?limit=100');
        expect(orders.body.data.filter((o: Body) => o.quoteId === q.id)).to.have.length(1);
      });

      it('when the quote has expired, then 410 quote-expired; a second before, it books', async () => {
        const [late, onTime] = [await busQuote(), await busQuote()];
        const expiresAt = Date.parse(late.expiresAt);
        expect(Date.parse(onTime.expiresAt)).to.be.at.least(expiresAt);
        await clock.shifted(expiresAt - Date.now() + 1000, async () => {
          const r = await book(late.id);
          expect([r.status, r.body.reason]).to.deep.equal([410, 'quote-expired']);
        });
        await clock.shifted(expiresAt - Date.now() - 1000, async () => expect((await book(onTime.id)).status).to.equal(201));
      });

      it('when the agent has moved to another channel since the quote, then 409 quote-channel-mismatch', async () => {
        const mover = await buildAgent(app.service);
        const q = await busQuote(mover);
        const target = await buildAgent(app.service);
        await app.service.core.admin.setAgentChannel.execute(mover.agentId, target.channelCode);
        await eventually(
          async () => (await get('/api/v1/agent/account', mover)).body.channel?.code === target.channelCode,
          3000,
          'channel change seen',
        );
        const r = await book(q.id, mover);
        expect([r.status, r.body.reason]).to.deep.equal([409, 'quote-channel-mismatch']);
      });

      it('when the trip has fewer seats left than the quote needs, then 409 sold-out', async () => {
        const s = await buildSchedule(app.service.ports.catalogue, { seatCapacity: 3 });
        const a = await busQuote(agent, 2, s);
        const b = await busQuote(agent, 2, s);
        expect((await book(a.id)).status).to.equal(201);
        const r = await book(b.id);
        expect([r.status, r.body.reason]).to.deep.equal([409, 'sold-out']);
      });

      it('when 20 bookings of one quote arrive at once, then exactly one order: one 201 and 19 409 quote-already-booked', async function () {
        await needsPostgres.call(this);
        const q = await busQuote();
        const all = await Promise.all(Array.from({ length: 20 }, () => book(q.id)));
        expect(all.filter((r) => r.status === 201)).to.have.length(1);
        expect(all.filter((r) => r.status === 409 && r.body.reason === 'quote-already-booked')).to.have.length(19);
        const count = await knex()('orders').where({ quote_id: q.id }).count<{ count: number }[]>({ count: '*' });
        expect(Number(count[0]!.count)).to.equal(1);
      });

      it('when N+10 one-seat orders hit a trip with N seats at once, then N orders and 10 sold-out', async function () {
        await needsPostgres.call(this);
        const n = 8;
        const s = await buildSchedule(app.service.ports.catalogue, { seatCapacity: n });
        const quotes = [];
        for (let i = 0; i < n + 10; i++) quotes.push(await busQuote(agent, 1, s));
        const all = await Promise.all(quotes.map((q) => book(q.id)));
        expect(all.filter((r) => r.status === 201)).to.have.length(n);
        expect(all.filter((r) => r.status === 409 && r.body.reason === 'sold-out')).to.have.length(10);
        const trips = await get(`/api/v1/express-bus/trips?fromCityId=cty_bangkok&toCityId=cty_pattaya&date=${date}`);
        expect(trips.body.data.find((t: Body) => t.id === tripIdOf(s, date)).seatsLeft).to.equal(0);
      });
    });

    describe('reading orders', () => {
      it('when orders are listed, then only the caller’s, newest first, page by page with a cursor, filtered by status', async () => {
        const lister = await buildAgent(app.service);
        const ids: string[] = [];
        for (let i = 0; i < 3; i++) ids.push((await book((await busQuote(lister)).id, lister)).body.id);
        await post(`/api/v1/orders/${ids[0]}/cancel`, {}, lister);
        const p1 = await get('/api/v1/orders?limit=2', lister);
        expect(p1.status).to.equal(200);
        expect(p1.body.data.map((o: Body) => o.id)).to.deep.equal([ids[2], ids[1]]);
        const p2 = await get(`/api/v1/orders?limit=2&cursor=${p1.body.nextCursor}`, lister);
        expect(p2.body.data.map((o: Body) => o.id)).to.deep.equal([ids[0]]);
        expect(p2.body.nextCursor).to.equal(null);
        const cancelled = await get('/api/v1/orders?status=CANCELLED', lister);
        expect(cancelled.body.data.map((o: Body) => o.id)).to.deep.equal([ids[0]]);
        const stranger = await buildAgent(app.service);
        expect((await get('/api/v1/orders', stranger)).body).to.deep.equal({ data: [], nextCursor: null });
      });

      it('when limit, status or cursor is bad, then 400 invalid-request', async () => {
        for (const q of ['limit=0', 'limit=101', 'status=PAID', 'cursor=%21%21']) {
          const r = await get(`/api/v1/orders?${q}`);
          expect([r.status, r.body.reason], q).to.deep.equal([400, 'invalid-request']);
        }
      });

      it('when an order is read, then its owner gets it and another agent gets 404 order-not-found', async () => {
        const order = (await book((await busQuote()).id)).body;
        const mine = await get(`/api/v1/orders/${order.id}`);
        expect(mine.body).to.deep.equal(order);
        const other = await buildAgent(app.service, { channelCode: agent.channelCode });
        const r = await get(`/api/v1/orders/${order.id}`, other);
        expect([r.status, r.body.reason]).to.deep.equal([404, 'order-not-found']);
        const none = await get(`/api/v1/orders/ord_${unique()}`);
        expect([none.status, none.body.reason]).to.deep.equal([404, 'order-not-found']);
      });
    });

    describe('POST /api/v1/orders/{orderId}/cancel', () => {
      const cancel = (id: string, a: TestAgent = agent) => call(`/api/v1/orders/${id}/cancel`, { method: 'POST', headers: as(a) });

      it('when an order is cancelled, then 200 CANCELLED, the seats come back, and a second cancel is 409 order-already-cancelled', async () => {
        const s = await buildSchedule(app.service.ports.catalogue, { seatCapacity: 4 });
        const order = (await book((await busQuote(agent, 3, s)).id)).body;
        const r = await cancel(order.id);
        expect(r.status).to.equal(200);
        expect(r.body).to.include({ id: order.id, status: 'CANCELLED' });
        expect(r.body.cancelledAt).to.be.a('string');
        const trips = await get(`/api/v1/express-bus/trips?fromCityId=cty_bangkok&toCityId=cty_pattaya&date=${date}`);
        expect(trips.body.data.find((t: Body) => t.id === tripIdOf(s, date)).seatsLeft).to.equal(4);
        const again = await cancel(order.id);
        expect([again.status, again.body.reason]).to.deep.equal([409, 'order-already-cancelled']);
      });

      it('when another agent cancels, then 404 order-not-found and the order stays confirmed', async () => {
        const order = (await book((await busQuote()).id)).body;
        const other = await buildAgent(app.service, { channelCode: agent.channelCode });
        const r = await cancel(order.id, other);
        expect([r.status, r.body.reason]).to.deep.equal([404, 'order-not-found']);
        expect((await get(`/api/v1/orders/${order.id}`)).body.status).to.equal('CONFIRMED');
      });

      it('when the key that placed the order is revoked as leaked, then 409 booked-with-leaked-key with any key; a rotated key’s order cancels', async () => {
        const owner = await buildAgent(app.service);
        const leakedOrder = (await book((await busQuote(owner)).id, owner)).body;
        const second = await issueKey(app.service, owner.agentId);
        const secondAgent = { ...owner, ...second };
        const rotatedOrder = (await book((await busQuote(secondAgent)).id, secondAgent)).body;
        const third = { ...owner, ...(await issueKey(app.service, owner.agentId)) };
        const revoke = app.service.core.admin.revokeApiKey;
        await revoke.execute(owner.keyId, 'leaked');
        await revoke.execute(second.keyId, 'rotated');
        const refused = await cancel(leakedOrder.id, third);
        expect([refused.status, refused.body.reason]).to.deep.equal([409, 'booked-with-leaked-key']);
        const allowed = await cancel(rotatedOrder.id, third);
        expect([allowed.status, allowed.body.status]).to.deep.equal([200, 'CANCELLED']);
      });

      it('when the departure has passed, then 409 cancellation-window-closed, and the order stays confirmed', async () => {
        const order = (await book((await busQuote()).id)).body;
        const departsAt = Date.parse(`${date}T03:00:00.000Z`);
        await clock.shifted(departsAt - Date.now() + 60_000, async () => {
          const r = await cancel(order.id);
          expect([r.status, r.body.reason]).to.deep.equal([409, 'cancellation-window-closed']);
        });
        expect((await get(`/api/v1/orders/${order.id}`)).body.status).to.equal('CONFIRMED');
      });

      it('when two cancels of one order arrive at once, then one 200 and one 409 order-already-cancelled', async function () {
        await needsPostgres.call(this);
        const order = (await book((await busQuote()).id)).body;
        const both = await Promise.all([cancel(order.id), cancel(order.id)]);
        expect(both.map((r) => r.status).sort()).to.deep.equal([200, 409]);
        expect(both.find((r) => r.status === 409)!.body.reason).to.equal('order-already-cancelled');
      });
    });
  });
}
