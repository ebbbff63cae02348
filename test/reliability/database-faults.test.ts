import { expect } from 'chai';
import { databaseKind, databaseUrl, testDatabase } from '../support/database.js';
import { buildAgent, eventually } from '../support/builders.js';
import { adminQuery, startAppOnOwnPool, terminateServiceConnections } from '../support/reliability.js';
import type { TestApp } from '../support/app.js';
import { freePort, privatePostgresAvailable, startPrivatePostgres, type PrivatePostgres } from '../../scripts/private-postgres.js';

const account = (app: TestApp, key: string) => app.request('/api/v1/agent/account', { headers: { 'X-API-KEY': key } });

const reasonOf = async (res: Response): Promise<string> => ((await res.json()) as { reason: string }).reason;

describe('database session limits', () => {
  it('when a pooled PostgreSQL connection is used, then statement, lock and idle-in-transaction timeouts are in force', async function () {
    // PGlite is one in-process session with no server-side timeouts to set.
    if ((await databaseKind()) !== 'postgres') this.skip();
    const knex = (await testDatabase()).knex;
    const show = async (name: string) => ((await knex.raw(`SHOW ${name}`)).rows[0] as Record<string, string>)[name];
    expect(await show('statement_timeout')).to.equal('10s');
    expect(await show('lock_timeout')).to.equal('5s');
    expect(await show('idle_in_transaction_session_timeout')).to.equal('30s');
  });

  it('when a statement runs past statement_timeout, then PostgreSQL cancels it (57014)', async function () {
    if ((await databaseKind()) !== 'postgres') this.skip();
    const knex = (await testDatabase()).knex;
    const err = await knex
      .transaction(async (trx) => {
        await trx.raw('SET LOCAL statement_timeout = 100');
        await trx.raw('SELECT pg_sleep(2)');
      })
      .then(
        () => null,
        (e: unknown) => e as { code?: string },
      );
    expect(err?.code).to.equal('57014');
  });
});

describe('an exhausted pool', () => {
  let app: TestApp;
  before(async function () {
    // Needs a pool of its own to starve; PGlite has no pool.
    const url = await databaseUrl();
    if (url === null) this.skip();
    app = await startAppOnOwnPool(url, { DB_POOL_MAX: '1', DB_ACQUIRE_TIMEOUT_MS: '300' });
  });
  after(async () => app?.stop());

  it('when every connection is busy, then requests answer 503 service-unavailable quickly, and 200 once one is free', async () => {
    const agent = await buildAgent(app.service);
    const knex = app.service.db!.knex;
    const hold = await knex.transaction();
    try {
      const started = Date.now();
      const res = await account(app, agent.apiKey);
      const ms = Date.now() - started;
      expect(res.status).to.equal(503);
      expect(res.headers.get('content-type')).to.match(/^application\/problem\+json/);
      expect(res.headers.get('retry-after')).to.equal('1');
      expect(await reasonOf(res)).to.equal('service-unavailable');
      expect(ms).to.be.below(1500);
      expect((await app.request('/readyz')).status).to.equal(503);
    } finally {
      await hold.commit();
    }
    expect((await account(app, agent.apiKey)).status).to.equal(200);
  });
});

describe('connections cut by the server', () => {
  let app: TestApp;
  let url: string;
  before(async function () {
    const u = await databaseUrl();
    // pg_terminate_backend needs a server; PGlite runs in this process.
    if (u === null) this.skip();
    url = u;
    app = await startAppOnOwnPool(url);
  });
  after(async () => app?.stop());

  it('when every service connection is terminated, then the process survives, requests succeed again, and the change feed reconnects', async () => {
    const agent = await buildAgent(app.service);
    const other = await buildAgent(app.service);
    expect((await account(app, agent.apiKey)).status).to.equal(200);
    expect(await terminateServiceConnections(url)).to.be.greaterThan(0);
    const statuses: number[] = [];
    const ms = await eventually(
      async () => {
        const res = await account(app, other.apiKey);
        statuses.push(res.status);
        return res.status === 200;
      },
      3000,
      'a request succeeds after the cut',
    );
    expect(ms).to.be.below(3000);
    expect(
      statuses.every((s) => s === 200 || s === 503),
      statuses.join(','),
    ).to.equal(true);
    // The feed is back: a revocation made by plain SQL reaches this instance's cache again.
    await eventually(
      async () =>
        (
          await adminQuery(
            url,
            `SELECT 1 FROM pg_stat_activity WHERE datname = current_database() AND application_name = 'partner-booking-wallet:listen'`,
          )
        ).length > 0,
      3000,
      'the LISTEN connection is back',
    );
    expect((await account(app, agent.apiKey)).status).to.equal(200);
    await adminQuery(url, `UPDATE api_keys SET expires_at = now() - interval '1 second' WHERE id = $1`, [agent.keyId]);
    await eventually(async () => (await account(app, agent.apiKey)).status === 401, 1000, 'the expiry is seen');
  });
});

describe('a PostgreSQL restart', () => {
  let server: PrivatePostgres | null = null;
  let app: TestApp;
  before(async function () {
    // A private cluster (never the shared server) is stopped and started; needs the server programs.
    if ((await databaseKind()) !== 'postgres' || !privatePostgresAvailable()) this.skip();
    this.timeout(60_000);
    server = await startPrivatePostgres(await freePort());
    await server.createDatabase('pbw');
    app = await startAppOnOwnPool(server.url('pbw'), { DB_ACQUIRE_TIMEOUT_MS: '1000' });
  });
  after(async function () {
    this.timeout(30_000);
    await app?.stop();
    await server?.destroy();
  });

  it('when the database is down, then 503 fast; when it is back, then the same process serves within 5 s', async function () {
    this.timeout(60_000);
    const pgServer = server as PrivatePostgres;
    const agent = await buildAgent(app.service);
    const fresh = await buildAgent(app.service);
    expect((await account(app, agent.apiKey)).status).to.equal(200);
    await pgServer.stop('fast');
    const started = Date.now();
    const down = await account(app, fresh.apiKey);
    expect(down.status).to.equal(503);
    expect(await reasonOf(down)).to.equal('service-unavailable');
    expect(Date.now() - started).to.be.below(1500);
    expect((await app.request('/readyz')).status).to.equal(503);
    await pgServer.start();
    const back = Date.now();
    await eventually(async () => (await account(app, fresh.apiKey)).status === 200, 5000, 'served again');
    expect(Date.now() - back).to.be.below(5000);
    expect((await app.request('/readyz')).status).to.equal(200);
    // The change feed is back too.
    await eventually(
      async () => {
        await adminQuery(pgServer.url('pbw'), `UPDATE agents SET status = 'SUSPENDED' WHERE id = $1`, [agent.agentId]);
        return (await account(app, agent.apiKey)).status === 403;
      },
      3000,
      'a suspension made by SQL is seen',
    );
  });
});
