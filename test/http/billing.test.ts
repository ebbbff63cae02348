import { expect } from 'chai';
import { json, startTestApp, type TestApp } from '../support/app.js';
import { buildAgent, type TestAgent } from '../support/builders.js';
import { buildSchedule, dateAhead, dropTestSchedules, tripIdOf } from '../support/booking-builders.js';
import { buildOperator } from '../../src/testing/fixtures.js';
import { ManualClock } from '../support/clock.js';

type Body = Record<string, any>;

const YEAR_AGO = new Date(Date.now() - 300 * 86_400_000).toISOString();
const YEAR_ON = new Date(Date.now() + 60 * 86_400_000).toISOString();

/** Bookings paid from the agent's account (CONTRACT §6.4), over HTTP, on the test database and in memory. */
for (const mode of ['database', 'memory'] as const) {
  describe(`bookings paid from the agent's account (${mode})`, () => {
    let app: TestApp;
    let schedule: Awaited<ReturnType<typeof buildSchedule>>;
    let onRequest: Awaited<ReturnType<typeof buildSchedule>>;
    const date = dateAhead(20);
    const contact = { name: 'Malee S.', email: 'malee@example.com' };
    const clock = new ManualClock();
    // Base fare 18,000 a seat; the channel's 10 % markup makes the price 19,800: 1,800 is revenue.
    const PRICE = 19_800;
    const BASE = 18_000;

    const call = async (
      path: string,
      init: RequestInit = {},
    ): Promise<{ status: number; body: Body; text: string; type: string | null }> => {
      const res = await app.request(path, init);
      const text = await res.text();
      const type = res.headers.get('content-type');
      return { status: res.status, text, type, body: type?.includes('json') === true ? (JSON.parse(text) as Body) : {} };
    };
    const post = (a: TestAgent, path: string, body: unknown) => call(path, json('POST', body, { 'X-API-KEY': a.apiKey }));
    const get = (a: TestAgent, path: string, headers: Record<string, string> = {}) =>
      call(path, { headers: { 'X-API-KEY': a.apiKey, ...headers } });
    const quote = async (a: TestAgent, s = schedule, passengers = 1): Promise<string> => {
      const r = await post(a, '/api/v1/express-bus/quotes', { tripId: tripIdOf(s, date), passengers });
      expect(r.status, JSON.stringify(r.body)).to.equal(201);
      return r.body.id as string;
    };
    const billing = async (a: TestAgent): Promise<Body> => (await get(a, '/api/v1/agent/account')).body.billing as Body;
    const amounts = (b: Body) => ({ balance: b.balance.amount, held: b.held.amount, spendable: b.spendable.amount });
    const prepaid = async (funded: number, creditLimit = 0): Promise<TestAgent> => {
      const a = await buildAgent(app.service, { markupBps: 1000 });
      await app.service.core.admin.setAgentBilling.execute({ agentId: a.agentId, mode: 'prepaid', creditLimit });
      if (funded > 0) await app.service.core.admin.fundAgent.execute({ agentId: a.agentId, amount: funded, reference: 'wire 1' });
      return a;
    };
    const statement = async (a: TestAgent): Promise<Body> => {
      const r = await get(a, `/api/v1/agent/statement?from=${encodeURIComponent(YEAR_AGO)}&to=${encodeURIComponent(YEAR_ON)}`);
      expect(r.status, r.text).to.equal(200);
      return r.body;
    };

    before(async () => {
      app = await startTestApp({ clock, memory: mode === 'memory' });
      await app.service.core.catalogue.seed.execute();
      schedule = await buildSchedule(app.service.ports.catalogue, { seatCapacity: 40 });
      onRequest = await buildSchedule(app.service.ports.catalogue, { operator: buildOperator({ confirmation: 'on-request' }) });
    });
    after(async () => {
      if (mode === 'database') await dropTestSchedules(app.service.db!.knex);
      await app.stop();
    });

    it('when an agent is created as before, then it is invoiced: it books with nothing paid in and its balance goes below zero', async () => {
      const a = await buildAgent(app.service, { markupBps: 1000 });
      expect(await billing(a)).to.deep.include({ mode: 'invoice', creditLimit: { amount: 0, currency: 'THB' } });
      const placed = await post(a, '/api/v1/orders', { quoteId: await quote(a), contact });
      expect(placed.status, placed.text).to.equal(201);
      expect(amounts(await billing(a))).to.deep.equal({ balance: -PRICE, held: 0, spendable: -PRICE });
    });

    it('when a prepaid agent books, then its balance falls by the price; short of it, 422 insufficient-funds with spendable and nothing is booked', async () => {
      const a = await prepaid(30_000);
      expect(amounts(await billing(a))).to.deep.equal({ balance: 30_000, held: 0, spendable: 30_000 });
      const placed = await post(a, '/api/v1/orders', { quoteId: await quote(a), contact });
      expect(placed.status, placed.text).to.equal(201);
      expect(amounts(await billing(a))).to.deep.equal({ balance: 30_000 - PRICE, held: 0, spendable: 30_000 - PRICE });
      const q = await quote(a);
      const short = await post(a, '/api/v1/orders', { quoteId: q, contact });
      expect([short.status, short.body.reason]).to.deep.equal([422, 'insufficient-funds']);
      expect(short.body.spendable).to.deep.equal({ amount: 30_000 - PRICE, currency: 'THB' });
      expect((await get(a, '/api/v1/orders')).body.data.map((o: Body) => o.id)).to.deep.equal([placed.body.id]);
      // Nothing booked: the quote is still free to book once the agent pays in.
      await app.service.core.admin.fundAgent.execute({ agentId: a.agentId, amount: 20_000 });
      expect((await post(a, '/api/v1/orders', { quoteId: q, contact })).status).to.equal(201);
    });

    it('when a prepaid agent has a credit limit, then it may book down to minus the limit and no further', async () => {
      const a = await prepaid(0, 25_000);
      expect((await post(a, '/api/v1/orders', { quoteId: await quote(a), contact })).status).to.equal(201);
      expect(amounts(await billing(a))).to.deep.equal({ balance: -PRICE, held: 0, spendable: 25_000 - PRICE });
      const short = await post(a, '/api/v1/orders', { quoteId: await quote(a), contact });
      expect([short.status, short.body.reason, short.body.spendable.amount]).to.deep.equal([422, 'insufficient-funds', 25_000 - PRICE]);
    });

    it('when a hold is placed, then its price is held at once; confirmed, it is paid; a release or lapse gives it back', async () => {
      const a = await prepaid(50_000);
      const held = await post(a, '/api/v1/orders', { quoteId: await quote(a), hold: {}, contact });
      expect(held.status, held.text).to.equal(201);
      expect(amounts(await billing(a))).to.deep.equal({ balance: 50_000, held: PRICE, spendable: 50_000 - PRICE });
      // The second hold is not covered by what is left after the first.
      const second = await post(a, '/api/v1/orders', { quoteId: await quote(a), hold: {}, contact });
      expect(second.status).to.equal(201);
      const third = await post(a, '/api/v1/orders', { quoteId: await quote(a), hold: {}, contact });
      expect([third.status, third.body.reason, third.body.spendable.amount]).to.deep.equal([422, 'insufficient-funds', 50_000 - 2 * PRICE]);
      expect((await post(a, `/api/v1/orders/${held.body.id}/confirm`, {})).body.status).to.equal('CONFIRMED');
      expect(amounts(await billing(a))).to.deep.equal({ balance: 50_000 - PRICE, held: PRICE, spendable: 50_000 - 2 * PRICE });
      expect((await post(a, `/api/v1/orders/${second.body.id}/release`, {})).body.status).to.equal('RELEASED');
      expect(amounts(await billing(a))).to.deep.equal({ balance: 50_000 - PRICE, held: 0, spendable: 50_000 - PRICE });
      const lapsing = await post(a, '/api/v1/orders', { quoteId: await quote(a), hold: { seconds: 60 }, contact });
      expect(amounts(await billing(a)).held).to.equal(PRICE);
      clock.advance(60_000);
      expect((await get(a, `/api/v1/orders/${lapsing.body.id}`)).body.status).to.equal('EXPIRED');
      expect(amounts(await billing(a))).to.deep.equal({ balance: 50_000 - PRICE, held: 0, spendable: 50_000 - PRICE });
    });

    it('when an on-request order is pending, then its price is held until the operator answers; a rejection gives it back, a confirm takes it', async () => {
      const a = await prepaid(50_000);
      const pending = await post(a, '/api/v1/orders', { quoteId: await quote(a, onRequest), contact });
      expect(pending.body.status).to.equal('PENDING');
      expect(amounts(await billing(a)).held).to.equal(PRICE);
      await app.service.core.booking.operatorOrders.reject(onRequest.operator, pending.body.id, 'sold-out');
      expect(amounts(await billing(a))).to.deep.equal({ balance: 50_000, held: 0, spendable: 50_000 });
      const held = await post(a, '/api/v1/orders', { quoteId: await quote(a, onRequest), hold: {}, contact });
      expect((await post(a, `/api/v1/orders/${held.body.id}/confirm`, {})).body.status).to.equal('PENDING');
      expect(amounts(await billing(a)).held).to.equal(PRICE);
      await app.service.core.booking.operatorOrders.confirm(onRequest.operator, held.body.id, 'OP-1');
      expect(amounts(await billing(a))).to.deep.equal({ balance: 50_000 - PRICE, held: 0, spendable: 50_000 - PRICE });
      const owed = await app.service.core.admin.statements.ofOperator(onRequest.operator.code, new Date(YEAR_AGO), new Date(YEAR_ON));
      const lines = [];
      for await (const l of owed.lines) lines.push(l);
      expect(lines.map((l) => [l.type, l.orderId, l.amount.amount])).to.deep.equal([['BOOKING', held.body.id, BASE]]);
    });

    it('when a confirmed order is cancelled, then the price less the fee comes back; an operator cancel gives it all back', async () => {
      const a = await prepaid(50_000);
      const placed = await post(a, '/api/v1/orders', { quoteId: await quote(a), contact });
      const cancelled = await post(a, `/api/v1/orders/${placed.body.id}/cancel`, {});
      expect(cancelled.body.status, cancelled.text).to.equal('CANCELLED');
      const fee = cancelled.body.fee.amount as number;
      expect(amounts(await billing(a)).balance).to.equal(50_000 - fee);
      const other = await post(a, '/api/v1/orders', { quoteId: await quote(a), contact });
      await app.service.core.booking.operatorOrders.cancel(schedule.operator, other.body.id);
      expect(amounts(await billing(a)).balance).to.equal(50_000 - fee);
      const s = await statement(a);
      const types = s.lines.map((l: Body) => [l.type, l.amount.amount]);
      expect(types).to.deep.equal([
        ['FUNDING', 50_000],
        ['BOOKING', -PRICE],
        ['REFUND', PRICE],
        ...(fee > 0 ? [['FEE', -fee]] : []),
        ['BOOKING', -PRICE],
        ['REFUND', PRICE],
      ]);
    });

    it('when the key that made a hold is reported leaked, then the hold is released and its price given back in the same change', async () => {
      const a = await prepaid(30_000);
      const held = await post(a, '/api/v1/orders', { quoteId: await quote(a), hold: {}, contact });
      expect(amounts(await billing(a)).held).to.equal(PRICE);
      await app.service.core.admin.revokeApiKey.execute(a.keyId, 'leaked');
      const other = await app.service.core.admin.issueApiKey.execute({ agentId: a.agentId });
      const fresh = { ...a, apiKey: other.apiKey, keyId: other.keyId };
      expect((await get(fresh, `/api/v1/orders/${held.body.id}`)).body).to.include({ status: 'RELEASED', releaseReason: 'key-leaked' });
      expect(amounts(await billing(fresh))).to.deep.equal({ balance: 30_000, held: 0, spendable: 30_000 });
    });

    it('when the statement is read, then opening plus the lines is closing, each line carries the balance after it, and CSV has a header row', async () => {
      const a = await prepaid(40_000);
      const placed = await post(a, '/api/v1/orders', { quoteId: await quote(a), contact, agentReference: 'REF-77' });
      const s = await statement(a);
      expect(s).to.include({ currency: 'THB' });
      expect(s.opening).to.deep.equal({ amount: 0, currency: 'THB' });
      expect(s.lines.map((l: Body) => [l.type, l.orderId, l.agentReference, l.amount.amount, l.balance.amount])).to.deep.equal([
        ['FUNDING', null, null, 40_000, 40_000],
        ['BOOKING', placed.body.id, 'REF-77', -PRICE, 40_000 - PRICE],
      ]);
      expect(s.closing).to.deep.equal({ amount: 40_000 - PRICE, currency: 'THB' });
      const later = await get(
        a,
        `/api/v1/agent/statement?from=${encodeURIComponent(new Date(Date.now() + 86_400_000).toISOString())}&to=${encodeURIComponent(YEAR_ON)}`,
      );
      expect(later.body.opening.amount).to.equal(40_000 - PRICE);
      expect(later.body.lines).to.deep.equal([]);
      const csv = await get(a, `/api/v1/agent/statement?from=${encodeURIComponent(YEAR_AGO)}&to=${encodeURIComponent(YEAR_ON)}`, {
        Accept: 'text/csv',
      });
      expect(csv.status).to.equal(200);
      expect(csv.type).to.match(/^text\/csv/);
      const rows = csv.text.trim().split('\n');
      expect(rows[0]).to.equal('at,type,orderId,agentReference,amount,balance,currency');
      expect(rows.slice(1).map((r) => r.split(',').slice(1, 6))).to.deep.equal([
        ['OPENING', '', '', '', '0'],
        ['FUNDING', '', '', '40000', '40000'],
        ['BOOKING', placed.body.id, 'REF-77', String(-PRICE), String(40_000 - PRICE)],
        ['CLOSING', '', '', '', String(40_000 - PRICE)],
      ]);
    });

    it('when a key without billing:read asks for the statement, then 403; a bad period is 400', async () => {
      const a = await prepaid(1_000);
      const narrow = await app.service.core.admin.issueApiKey.execute({ agentId: a.agentId, scopes: ['orders:read'] });
      const refused = await call(`/api/v1/agent/statement?from=${encodeURIComponent(YEAR_AGO)}&to=${encodeURIComponent(YEAR_ON)}`, {
        headers: { 'X-API-KEY': narrow.apiKey },
      });
      expect(refused.status).to.equal(403);
      const allowed = await app.service.core.admin.issueApiKey.execute({ agentId: a.agentId, scopes: ['billing:read'] });
      expect(
        (
          await call(`/api/v1/agent/statement?from=${encodeURIComponent(YEAR_AGO)}&to=${encodeURIComponent(YEAR_ON)}`, {
            headers: { 'X-API-KEY': allowed.apiKey },
          })
        ).status,
      ).to.equal(200);
      const backwards = await get(a, `/api/v1/agent/statement?from=${encodeURIComponent(YEAR_ON)}&to=${encodeURIComponent(YEAR_AGO)}`);
      expect([backwards.status, backwards.body.reason]).to.deep.equal([400, 'invalid-request']);
    });
  });
}
