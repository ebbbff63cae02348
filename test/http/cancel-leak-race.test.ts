import { expect } from 'chai';
import type { Knex } from 'knex';
import { json, startTestApp, type TestApp } from '../support/app.js';
import { buildAgent, eventually, type TestAgent } from '../support/builders.js';
import { buildSchedule, dateAhead, dropTestSchedules, tripIdOf } from '../support/booking-builders.js';
import { databaseKind } from '../support/database.js';
import type { BusSchedule } from '../../src/domain/catalogue/catalogue.js';

type Body = Record<string, any>;

/**
 * A cancel racing a leak report of the key that booked the order, on PostgreSQL. The interleaving
 * is made deterministic by holding one row lock from the test's own connection, which is why
 * these tests run SQL: the service offers no way to pause a request halfway. They lock a row the
 * cancel needs (the order, or the trip's seat inventory), wait until the database shows the
 * request waiting on it, make the other request, then let go. Nothing is written by the test.
 */
describe('a cancel racing a leak report of the booking key (PostgreSQL)', () => {
  let app: TestApp;
  let knex: Knex;
  let schedule: BusSchedule;
  const date = dateAhead(25);
  const contact = { name: 'Malee S.', email: 'malee@example.com' };

  before(async function () {
    // PGlite runs one statement at a time: no request can wait on another's lock there.
    if ((await databaseKind()) !== 'postgres') this.skip();
    app = await startTestApp();
    knex = app.service.db!.knex;
    await app.service.core.catalogue.seed.execute();
    schedule = await buildSchedule(app.service.ports.catalogue, { seatCapacity: 40 });
  });
  after(async () => {
    if (app === undefined) return;
    await dropTestSchedules(knex);
    await app.stop();
  });

  const post = async (path: string, apiKey: string): Promise<{ status: number; body: Body }> => {
    const res = await app.request(path, json('POST', {}, { 'X-API-KEY': apiKey }));
    return { status: res.status, body: (await res.json()) as Body };
  };
  const book = async (agent: TestAgent): Promise<Body> => {
    const q = await app.request(
      '/api/v1/express-bus/quotes',
      json('POST', { tripId: tripIdOf(schedule, date), passengers: 1 }, { 'X-API-KEY': agent.apiKey }),
    );
    expect(q.status).to.equal(201);
    const o = await app.request(
      '/api/v1/orders',
      json('POST', { quoteId: ((await q.json()) as Body).id, contact }, { 'X-API-KEY': agent.apiKey }),
    );
    expect(o.status).to.equal(201);
    return (await o.json()) as Body;
  };
  /** The backends waiting on a lock that `pid` holds. */
  const waitingOn = async (pid: number): Promise<number[]> =>
    ((await knex.raw('SELECT pid FROM pg_stat_activity WHERE ? = ANY(pg_blocking_pids(pid))', [pid])).rows as Array<{ pid: number }>).map(
      (r) => r.pid,
    );
  const pidOf = async (trx: Knex.Transaction): Promise<number> => (await trx.raw('SELECT pg_backend_pid() AS pid')).rows[0].pid as number;

  it('when the leak report commits while the cancel waits for the order, then the cancel sees it: 409 booked-with-leaked-key', async () => {
    const agent = await buildAgent(app.service);
    const order = await book(agent);
    const holder = await knex.transaction();
    let cancel: Promise<{ status: number; body: Body }> | undefined;
    try {
      await holder.raw('SELECT 1 FROM orders WHERE id = ? FOR UPDATE', [order.id]);
      const holderPid = await pidOf(holder);
      cancel = post(`/api/v1/orders/${order.id}/cancel`, agent.apiKey);
      await eventually(async () => (await waitingOn(holderPid)).length > 0, 4000, 'the cancel waits for the order lock');
      // The report touches no order row: it commits while the cancel still waits.
      const report = await post('/api/v1/keys/current/report-leak', agent.apiKey);
      expect(report.status).to.equal(200);
      expect(report.body.key).to.include({ status: 'REVOKED', revokedReason: 'leaked' });
    } finally {
      await holder.rollback();
    }
    const cancelled = await cancel!;
    expect([cancelled.status, cancelled.body.reason]).to.deep.equal([409, 'booked-with-leaked-key']);
    expect(((await knex('orders').where({ id: order.id }).first('status')) as { status: string }).status).to.equal('CONFIRMED');
  });

  it('when the cancel has read the key and not yet committed, then the leak report waits for it, and the order was cancelled before the report', async () => {
    const agent = await buildAgent(app.service);
    const order = await book(agent);
    const holder = await knex.transaction();
    let cancel: Promise<{ status: number; body: Body }> | undefined;
    let report: Promise<{ status: number; body: Body }> | undefined;
    let reported = false;
    try {
      // The cancel records its event last: holding the outbox's table against writes stops it
      // there, after it has locked the order and read the key.
      await holder.raw('LOCK TABLE webhook_events IN SHARE MODE');
      const holderPid = await pidOf(holder);
      cancel = post(`/api/v1/orders/${order.id}/cancel`, agent.apiKey);
      let cancelPid = 0;
      await eventually(
        async () => {
          cancelPid = (await waitingOn(holderPid))[0] ?? 0;
          return cancelPid !== 0;
        },
        4000,
        'the cancel waits to record its event',
      );
      report = post('/api/v1/keys/current/report-leak', agent.apiKey).then((r) => {
        reported = true;
        return r;
      });
      // The report must wait for the cancel: it locks the key, which the cancel has read.
      await eventually(async () => (await waitingOn(cancelPid)).length > 0 || reported, 4000, 'the report waits for the cancel');
      expect(reported, 'the leak report committed while the cancel was in flight').to.equal(false);
    } finally {
      await holder.rollback();
    }
    const cancelled = await cancel!;
    expect([cancelled.status, cancelled.body.status]).to.deep.equal([200, 'CANCELLED']);
    const done = await report!;
    expect(done.status).to.equal(200);
    const row = (await knex('orders').where({ id: order.id }).first('cancelled_at')) as { cancelled_at: Date };
    const key = (await knex('api_keys').where({ id: agent.keyId }).first('revoked_at', 'revoked_reason')) as {
      revoked_at: Date;
      revoked_reason: string;
    };
    expect(key.revoked_reason).to.equal('leaked');
    expect(row.cancelled_at.getTime()).to.be.at.most(key.revoked_at.getTime());
  });
});
