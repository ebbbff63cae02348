import { expect } from 'chai';
import { json, twoInstances, type TestApp } from '../support/app.js';
import { buildAgent, eventually, issueKey, unique } from '../support/builders.js';
import { buildSchedule, dateAhead, dropTestSchedules, tripIdOf } from '../support/booking-builders.js';
import { databaseKind } from '../support/database.js';
import type { BusSchedule } from '../../src/domain/catalogue/catalogue.js';

type Body = Record<string, any>;
type Answer = { status: number; body: Body };

/**
 * Writes a key makes on its own lineage (creates, a roll, deletes of keys it made) fired at the
 * same moment as its leak report, on two instances of the service on one PostgreSQL, each
 * answering from its own key cache (warmed first, so every request passes authentication before
 * the report commits). Of a write and the report, one happens entirely before the other: a key
 * made is revoked with the lineage as leaked, or the write is refused as the revoked key's would
 * be (401 invalid-api-key). No key made in the race can book.
 */
describe('creates and a roll racing the creator’s leak report, on two instances (PostgreSQL)', () => {
  const apps = twoInstances();
  let schedule: BusSchedule;
  const date = dateAhead(23);
  const TRIALS = 24;
  const CREATES = 6;

  before(async function () {
    // PGlite runs one statement at a time: nothing races there.
    if ((await databaseKind()) !== 'postgres') this.skip();
    await apps.a.service.core.catalogue.seed.execute();
    schedule = await buildSchedule(apps.a.service.ports.catalogue, { seatCapacity: 40 });
  });
  after(async () => {
    if (apps.a?.service.db) await dropTestSchedules(apps.a.service.db.knex);
  });

  const post = async (app: TestApp, path: string, body: unknown, key: string, headers: Record<string, string> = {}): Promise<Answer> => {
    const res = await app.request(path, json('POST', body, { 'X-API-KEY': key, ...headers }));
    const text = await res.text();
    return { status: res.status, body: (text === '' ? {} : JSON.parse(text)) as Body };
  };
  const status = async (app: TestApp, key: string) =>
    (await app.request('/api/v1/agent/account', { headers: { 'X-API-KEY': key } })).status;
  const create = (app: TestApp, key: string) =>
    post(app, '/api/v1/keys', { name: `race ${unique()}`, scopes: ['*'] }, key, { 'Idempotency-Key': `idem-${unique()}` });
  const quote = (app: TestApp, key: string) =>
    post(app, '/api/v1/express-bus/quotes', { tripId: tripIdOf(schedule, date), passengers: 1 }, key);

  it(`when ${CREATES} creates and a roll of key R race R's leak report on two instances, ${TRIALS} times, then every key made is revoked as leaked or its write was refused 401, and none can book`, async function () {
    this.timeout(180_000);
    let made = 0;
    let refused = 0;
    for (let trial = 0; trial < TRIALS; trial++) {
      const agent = await buildAgent(apps.a.service);
      // R resolved and cached on both instances, so each write below passes authentication at once.
      expect(await status(apps.a, agent.apiKey)).to.equal(200);
      expect(await status(apps.b, agent.apiKey)).to.equal(200);
      // One create first, to learn how long a write takes here and now (it is R's lineage too).
      const started = Date.now();
      const first = await create(apps.a, agent.apiKey);
      expect(first.status, JSON.stringify(first.body)).to.equal(201);
      const latency = Math.max(5, Date.now() - started);
      // The creates spread over twice that and the report fired halfway: some creates commit well
      // before the report, some race it, some come after. The roll goes at 0, 1/3, 2/3 or 1 of it.
      const at = <T>(ms: number, write: () => Promise<T>) =>
        new Promise<T>((resolve, reject) => setTimeout(() => write().then(resolve, reject), ms));
      const creates = Array.from({ length: CREATES }, (_, i) =>
        at((2 * latency * i) / (CREATES - 1), () => create(i % 2 === 0 ? apps.a : apps.b, agent.apiKey)),
      );
      const roll = at((2 * latency * (trial % 4)) / 3, () =>
        post(trial % 2 === 0 ? apps.b : apps.a, '/api/v1/keys/current/roll', { overlapSeconds: 600 }, agent.apiKey, {
          'Idempotency-Key': `idem-${unique()}`,
        }),
      );
      const leak = at(latency, () => post(trial % 2 === 0 ? apps.a : apps.b, '/api/v1/keys/current/report-leak', {}, agent.apiKey));
      const answers = await Promise.all([...creates, roll]);
      const report = await leak;
      expect(report.status, JSON.stringify(report.body)).to.equal(200);

      const writtenKeys: string[] = [first.body.apiKey as string];
      for (const answer of answers) {
        if (answer.status === 201) {
          made++;
          writtenKeys.push(answer.body.apiKey as string);
        } else {
          refused++;
          expect([answer.status, answer.body.reason], `trial ${trial}: ${JSON.stringify(answer.body)}`).to.deep.equal([
            401,
            'invalid-api-key',
          ]);
        }
      }
      // Every key of the agent but the operator's fresh one is R's lineage: all revoked as leaked.
      const fresh = await issueKey(apps.b.service, agent.agentId);
      const listed = await apps.b.request('/api/v1/keys', { headers: { 'X-API-KEY': fresh.apiKey } });
      const keys = ((await listed.json()) as { data: Body[] }).data.filter((k) => k.id !== fresh.keyId);
      expect(keys.length, `trial ${trial}`).to.equal(1 + writtenKeys.length);
      for (const key of keys) {
        expect([key.id, key.status, key.revokedReason], `trial ${trial}`).to.deep.equal([key.id, 'REVOKED', 'leaked']);
      }
      // None of the keys made can quote (let alone book) on either instance.
      for (const key of writtenKeys) {
        for (const app of [apps.a, apps.b]) {
          await eventually(async () => (await quote(app, key)).status === 401, 1000, `trial ${trial}: a key made in the race is refused`);
        }
      }
    }
    // The race is real: some writes won it and some lost it, over the trials.
    expect(made, 'writes made before the report').to.be.above(0);
    expect(refused, 'writes refused after the report').to.be.above(0);
  });
});
