import { expect } from 'chai';
import { json, startTestApp, type TestApp } from '../support/app.js';
import { buildAgent, type TestAgent } from '../support/builders.js';
import { buildSchedule, dateAhead, dropTestSchedules, tripIdOf } from '../support/booking-builders.js';
import { ManualClock } from '../support/clock.js';

type Body = Record<string, any>;

/** Holds over HTTP (CONTRACT §6.2), on the test database and on the in-memory adapters. */
for (const mode of ['database', 'memory'] as const) {
  describe(`holds over HTTP (${mode})`, () => {
    let app: TestApp;
    let agent: TestAgent;
    let schedule: Awaited<ReturnType<typeof buildSchedule>>;
    const date = dateAhead(20);
    const contact = { name: 'Malee S.', email: 'malee@example.com' };
    const clock = new ManualClock();

    const call = async (path: string, init: RequestInit = {}): Promise<{ status: number; body: Body }> => {
      const res = await app.request(path, init);
      return { status: res.status, body: (await res.json()) as Body };
    };
    const post = (path: string, body: unknown, a: TestAgent = agent) => call(path, json('POST', body, { 'X-API-KEY': a.apiKey }));
    const get = (path: string, a: TestAgent = agent) => call(path, { headers: { 'X-API-KEY': a.apiKey } });
    const quote = async (a: TestAgent = agent, passengers = 1): Promise<string> => {
      const r = await post('/api/v1/express-bus/quotes', { tripId: tripIdOf(schedule, date), passengers }, a);
      expect(r.status, JSON.stringify(r.body)).to.equal(201);
      return r.body.id as string;
    };
    const seatsLeft = async (): Promise<number> => {
      const r = await get(`/api/v1/express-bus/trips?fromCityId=cty_bangkok&toCityId=cty_pattaya&date=${date}`);
      return r.body.data.find((t: Body) => t.id === tripIdOf(schedule, date)).seatsLeft as number;
    };

    before(async () => {
      app = await startTestApp({ clock, memory: mode === 'memory' });
      await app.service.core.catalogue.seed.execute();
      schedule = await buildSchedule(app.service.ports.catalogue, { seatCapacity: 3 });
      agent = await buildAgent(app.service);
    });
    after(async () => {
      if (mode === 'database') await dropTestSchedules(app.service.db!.knex);
      await app.stop();
    });

    it('when a quote is held and confirmed, then ON_HOLD with holdExpiresAt, then CONFIRMED with the contact sent at the confirm', async () => {
      const held = await post('/api/v1/orders', { quoteId: await quote(agent, 2), hold: {} });
      expect(held.status, JSON.stringify(held.body)).to.equal(201);
      expect(held.body).to.include({ status: 'ON_HOLD', contact: null });
      expect(Date.parse(held.body.holdExpiresAt) - clock.now().getTime()).to.be.closeTo(900_000, 2_000);
      expect(await seatsLeft()).to.equal(1);
      const noContact = await post(`/api/v1/orders/${held.body.id}/confirm`, {});
      expect([noContact.status, noContact.body.reason]).to.deep.equal([400, 'invalid-request']);
      const confirmed = await post(`/api/v1/orders/${held.body.id}/confirm`, { contact });
      expect(confirmed.status, JSON.stringify(confirmed.body)).to.equal(200);
      expect(confirmed.body).to.deep.include({ status: 'CONFIRMED', contact: { ...contact, phone: null } });
      const again = await post(`/api/v1/orders/${held.body.id}/confirm`, { contact });
      expect([again.status, again.body.reason]).to.deep.equal([409, 'order-not-on-hold']);
      const release = await post(`/api/v1/orders/${held.body.id}/release`, {});
      expect([release.status, release.body.reason]).to.deep.equal([409, 'order-not-on-hold']);
      expect((await post(`/api/v1/orders/${held.body.id}/cancel`, {})).body.status).to.equal('CANCELLED');
      expect(await seatsLeft()).to.equal(3);
    });

    it('when a hold asks for more than the channel allows, then it is granted the most and says so', async () => {
      const held = await post('/api/v1/orders', { quoteId: await quote(), hold: { seconds: 7_200 }, contact });
      expect(Date.parse(held.body.holdExpiresAt) - clock.now().getTime()).to.be.closeTo(30 * 60_000, 2_000);
      expect((await post(`/api/v1/orders/${held.body.id}/release`, {})).body.status).to.equal('RELEASED');
    });

    it('when a hold lapses, then reads say EXPIRED at once, its seats sell, and a confirm is 410 hold-expired', async () => {
      const held = await post('/api/v1/orders', { quoteId: await quote(agent, 3), hold: { seconds: 120 }, contact });
      expect(held.body.status).to.equal('ON_HOLD');
      const soldOut = await post('/api/v1/express-bus/quotes', { tripId: tripIdOf(schedule, date), passengers: 1 });
      expect([soldOut.status, soldOut.body.reason]).to.deep.equal([409, 'sold-out']);
      clock.advance(120_000);
      expect((await get(`/api/v1/orders/${held.body.id}`)).body.status).to.equal('EXPIRED');
      expect((await get('/api/v1/orders?status=EXPIRED')).body.data.map((o: Body) => o.id)).to.include(held.body.id);
      expect(await seatsLeft()).to.equal(3);
      const late = await post(`/api/v1/orders/${held.body.id}/confirm`, {});
      expect([late.status, late.body.reason]).to.deep.equal([410, 'hold-expired']);
      const release = await post(`/api/v1/orders/${held.body.id}/release`, {});
      expect([release.status, release.body.reason]).to.deep.equal([409, 'order-not-on-hold']);
    });

    it('when another agent holds, confirms or releases with someone else’s quote or order, then 404; bad holds are 400 with paths', async () => {
      const other = await buildAgent(app.service);
      const theirs = await post('/api/v1/orders', { quoteId: await quote(), hold: {} }, agent);
      const held = await post('/api/v1/orders', { quoteId: await quote(), hold: {} }, other);
      expect([held.status, held.body.reason]).to.deep.equal([404, 'quote-not-found']);
      for (const action of ['confirm', 'release']) {
        const r = await post(`/api/v1/orders/${theirs.body.id}/${action}`, { contact }, other);
        expect([r.status, r.body.reason], action).to.deep.equal([404, 'order-not-found']);
      }
      for (const hold of [{ seconds: 0 }, { seconds: 'long' }, 'yes']) {
        const r = await post('/api/v1/orders', { quoteId: await quote(), hold });
        expect([r.status, r.body.reason], JSON.stringify(hold)).to.deep.equal([400, 'invalid-request']);
        expect(JSON.stringify(r.body.errors)).to.include('hold');
      }
      await post(`/api/v1/orders/${theirs.body.id}/release`, {});
    });
  });
}
