import { expect } from 'chai';
import pg from 'pg';
import { json, startTestApp, type TestApp } from '../support/app.js';
import { eventually, unique } from '../support/builders.js';
import { databaseUrl } from '../support/database.js';
import { spawnServer, type ServerProcess } from '../support/reliability.js';
import { bearer, buildTenant, delegatedToken, machineToken } from '../support/wallet-builders.js';
import { freePort } from '../../scripts/private-postgres.js';

describe('a retry after the instance running the first attempt was killed (SIGKILL)', () => {
  let url: string;
  let app: TestApp;
  let server: ServerProcess | null = null;
  before(async function () {
    const u = await databaseUrl();
    // The first attempt is held mid-request by a row lock from a second connection: PostgreSQL only.
    if (u === null) this.skip();
    url = u;
    app = await startTestApp();
  });
  afterEach(() => {
    if (server !== null && server.child.exitCode === null) server.child.kill('SIGKILL');
    server = null;
  });
  after(async () => app?.stop());

  it('when the same Idempotency-Key is retried at once on another instance, then it applies exactly once, with no 409', async function () {
    this.timeout(90_000);
    const tenant = await buildTenant(app.service);
    const machine = await machineToken(app, tenant);
    const { userId } = await delegatedToken(app, machine);
    const topUp = (base: string, key: string) =>
      fetch(
        `${base}/users/${userId}/top-ups`,
        json(
          'POST',
          { amount: { amount: 700, currency: 'THB' }, reference: 'crash-retry' },
          { ...bearer(machine), 'idempotency-key': key },
        ),
      );
    const balance = async (): Promise<number> =>
      ((await (await app.request(`/users/${userId}`, { headers: bearer(machine) })).json()) as { balance: { amount: number } }).balance
        .amount;
    // The user's ledger account exists after a first top-up.
    expect((await topUp(app.url, `warm-${unique()}`)).status).to.equal(201);
    const before = await balance();

    server = await spawnServer('src/bootstrap/main.ts', { DATABASE_URL: url, RATE_LIMITS: 'off' }, await freePort());
    const locker = new pg.Client({ connectionString: url, application_name: 'pbw-test-locker' });
    await locker.connect();
    try {
      await locker.query('BEGIN');
      await locker.query('SELECT id FROM ledger_accounts WHERE tenant_id = $1 AND user_id = $2 FOR UPDATE', [tenant.tenantId, userId]);
      const key = `crash-${unique()}`;
      const first = topUp(server.url, key).then(
        (r) => r.status,
        () => 'no answer',
      );
      // The first attempt has claimed the key and now waits for the account's row lock. (The
      // locker reads pg_stat_activity inside its transaction, which keeps the first snapshot of
      // it unless cleared: each look clears it.)
      await eventually(
        async () =>
          (await locker.query('SELECT pg_stat_clear_snapshot()')) &&
          (
            await locker.query(
              `SELECT 1 FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock' AND application_name = 'partner-booking-wallet'`,
            )
          ).rowCount! > 0,
        10_000,
        'the first attempt waits on the account lock',
      );
      server.child.kill('SIGKILL');
      await server.exited();
      expect(await first).to.equal('no answer');
      await locker.query('ROLLBACK');

      const started = Date.now();
      const retry = await topUp(app.url, key);
      const retryBody = await retry.text();
      expect(retry.status, retryBody).to.equal(201);
      expect(Date.now() - started).to.be.below(5_000);
      expect(await balance()).to.equal(before + 700);

      const again = await topUp(app.url, key);
      expect(again.status).to.equal(201);
      expect(again.headers.get('idempotent-replayed')).to.equal('true');
      expect(await again.text()).to.equal(retryBody);
      expect(await balance()).to.equal(before + 700);
    } finally {
      await locker.end();
    }
  });
});
