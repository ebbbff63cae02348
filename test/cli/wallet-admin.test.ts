import { expect } from 'chai';
import { adminProcess } from '../support/cli.js';
import { runAdmin } from '../../src/adapters/cli/admin.js';
import { ADMIN_COMMANDS, adminUseCases } from '../../src/bootstrap/admin-commands.js';
import { openService } from '../../src/bootstrap/service.js';
import { silentLog, startTestApp, testConfig, type TestApp } from '../support/app.js';
import { eventually, unique } from '../support/builders.js';
import { databaseUrl } from '../support/database.js';
import { bearer, delegatedToken, formPost, login, machineToken, testAddress } from '../support/wallet-builders.js';

/** Each admin command runs as a separate process on the test database. */
const admin = adminProcess;

describe('wallet admin commands (separate processes on PostgreSQL)', function () {
  this.timeout(180_000);
  let url: string | null;
  let app: TestApp;
  before(async function () {
    url = await databaseUrl();
    // The embedded PGlite of a test run lives in this process; another process cannot open it.
    if (url === null) this.skip();
    app = await startTestApp({ env: { TRUST_PROXY: '1' } });
  });
  after(async () => {
    if (app) await app.stop();
  });

  it('when an operator creates a tenant and a user, then the secret (shown once) gets a token and the user can log in', async () => {
    const t = await admin(url!, 'tenant', 'create', '--name', `Ops ${unique()}`, '--currency', 'USD', '--json');
    expect(t.code, t.stderr).to.equal(0);
    const tenant = JSON.parse(t.stdout) as { tenantId: string; clientId: string; clientSecret: string };
    expect(Object.keys(tenant).sort()).to.deep.equal(['clientId', 'clientSecret', 'tenantId']);
    expect(tenant.tenantId).to.match(/^tnt_/);
    expect(tenant.clientId).to.match(/^cli_/);
    const email = `ops-${unique()}@example.com`;
    const u = await admin(
      url!,
      'user',
      'create',
      '--tenant',
      tenant.tenantId,
      '--email',
      email,
      '--password',
      'a long password',
      '--external-ref',
      `ops-${unique()}`,
      '--json',
    );
    expect(u.code, u.stderr).to.equal(0);
    const { userId } = JSON.parse(u.stdout) as { userId: string };
    expect(userId).to.match(/^usr_/);
    const token = await app.request(
      '/oauth/token',
      formPost({ grant_type: 'client_credentials', client_id: tenant.clientId, client_secret: tenant.clientSecret }),
    );
    expect(token.status).to.equal(200);
    const res = await login(app, { clientId: tenant.clientId, email, password: 'a long password' }, testAddress());
    expect(res.status).to.equal(200);
    const me = await app.request('/me', { headers: bearer(((await res.json()) as { access_token: string }).access_token) });
    expect(((await me.json()) as { id: string }).id).to.equal(userId);
  });

  it('when an operator creates a test tenant, then its client id says so, its token works, and the list shows it is not live', async () => {
    const t = await admin(url!, 'tenant', 'create', '--name', `Sandbox ${unique()}`, '--test', '--json');
    expect(t.code, t.stderr).to.equal(0);
    const tenant = JSON.parse(t.stdout) as { tenantId: string; clientId: string; clientSecret: string };
    expect(Object.keys(tenant).sort()).to.deep.equal(['clientId', 'clientSecret', 'tenantId']);
    expect(tenant.clientId).to.match(/^cli_test_[0-9A-Z]{26}$/);
    const token = await app.request(
      '/oauth/token',
      formPost({ grant_type: 'client_credentials', client_id: tenant.clientId, client_secret: tenant.clientSecret }),
    );
    expect(token.status).to.equal(200);
    const live = JSON.parse((await admin(url!, 'tenant', 'create', '--name', `Live ${unique()}`, '--json')).stdout) as {
      tenantId: string;
      clientId: string;
    };
    expect(live.clientId).to.match(/^cli_(?!test_)/);
    const list = await admin(url!, 'tenant', 'list', '--json');
    const rows = (JSON.parse(list.stdout) as { data: { tenantId: string; livemode: boolean }[] }).data;
    expect(rows.find((r) => r.tenantId === tenant.tenantId)?.livemode).to.equal(false);
    expect(rows.find((r) => r.tenantId === live.tenantId)?.livemode).to.equal(true);
  });

  it('when an operator lists, rotates and disables, then the JSON is as documented and the service follows at once', async function () {
    // Seven separate admin processes.
    this.timeout(240_000);
    const tenant = JSON.parse((await admin(url!, 'tenant', 'create', '--name', `Rot ${unique()}`, '--json')).stdout) as {
      tenantId: string;
      clientId: string;
      clientSecret: string;
    };
    const rotated = await admin(url!, 'tenant', 'rotate-secret', '--tenant', tenant.tenantId, '--overlap-hours', '2', '--json');
    expect(rotated.code, rotated.stderr).to.equal(0);
    const r = JSON.parse(rotated.stdout) as { tenantId: string; clientId: string; clientSecret: string; previousSecretValidUntil: string };
    expect(Object.keys(r).sort()).to.deep.equal(['clientId', 'clientSecret', 'previousSecretValidUntil', 'tenantId']);
    expect(r).to.include({ tenantId: tenant.tenantId, clientId: tenant.clientId });
    expect(Date.parse(r.previousSecretValidUntil) - Date.now()).to.be.within(2 * 3600_000 - 120_000, 2 * 3600_000);
    for (const secret of [tenant.clientSecret, r.clientSecret]) {
      const res = await app.request(
        '/oauth/token',
        formPost({ grant_type: 'client_credentials', client_id: tenant.clientId, client_secret: secret }),
      );
      expect(res.status).to.equal(200);
    }
    const list = await admin(url!, 'tenant', 'list', '--json');
    expect(list.code, list.stderr).to.equal(0);
    const tenants = (JSON.parse(list.stdout) as { data: Array<Record<string, unknown>> }).data;
    const listed = tenants.find((t) => t.tenantId === tenant.tenantId)!;
    expect(listed).to.include({ clientId: tenant.clientId, previousSecretValidUntil: r.previousSecretValidUntil });
    expect(list.stdout).not.to.include('pbcs_');

    const machine = await machineToken(app, { ...tenant, clientSecret: r.clientSecret });
    const user = await delegatedToken(app, machine);
    expect((await app.request('/me', { headers: bearer(user.token) })).status).to.equal(200);
    const off = await admin(url!, 'user', 'disable', '--user', user.userId, '--json');
    expect(off.code, off.stderr).to.equal(0);
    expect(JSON.parse(off.stdout)).to.include({ userId: user.userId, status: 'DISABLED' });
    await eventually(
      async () => (await app.request('/me', { headers: bearer(user.token) })).status === 401,
      1000,
      'the disabled user’s token is refused',
    );
    const users = await admin(url!, 'user', 'list', '--tenant', tenant.tenantId, '--json');
    expect((JSON.parse(users.stdout) as { data: Array<Record<string, unknown>> }).data)
      .to.have.length(1)
      .and.to.satisfy((d: Array<Record<string, unknown>>) => d[0]!.status === 'DISABLED');
    const on = await admin(url!, 'user', 'enable', '--user', user.userId, '--json');
    expect(JSON.parse(on.stdout)).to.deep.equal({ userId: user.userId, status: 'ACTIVE', disabledAt: null });
    // The token from before stays dead; a new one works.
    expect((await app.request('/me', { headers: bearer(user.token) })).status).to.equal(401);
    const unknown = await admin(url!, 'user', 'disable', '--user', 'usr_nobody', '--json');
    expect(unknown.code).to.equal(1);
    expect(JSON.parse(unknown.stderr).error.reason).to.equal('user-not-found');
  });

  it('when demo seed --reset runs, then it prints wallet credentials that work and the previous ones stop working', async function () {
    this.timeout(180_000);
    type Wallet = { clientId: string; clientSecret: string; user: { email: string; password: string; userId: string } };
    const seed = async (...flags: string[]): Promise<Wallet> => {
      const out = await admin(url!, 'demo', 'seed', ...flags, '--json');
      expect(out.code, out.stderr).to.equal(0);
      return (JSON.parse(out.stdout) as { wallet: Wallet }).wallet;
    };
    const token = (w: Wallet) =>
      app.request('/oauth/token', formPost({ grant_type: 'client_credentials', client_id: w.clientId, client_secret: w.clientSecret }));
    const logIn = (w: Wallet) => login(app, { clientId: w.clientId, email: w.user.email, password: w.user.password }, testAddress());
    const before = await seed('--reset');
    expect((await token(before)).status).to.equal(200);
    expect((await logIn(before)).status).to.equal(200);
    // Without --reset nothing is issued or replaced: the secret and the password still work.
    const unchanged = await seed();
    expect(unchanged).not.to.have.property('clientSecret');
    expect(unchanged.user).to.deep.equal({ userId: before.user.userId, email: before.user.email });
    expect((await token(before)).status).to.equal(200);
    expect((await logIn(before)).status).to.equal(200);
    const after = await seed('--reset');
    expect((await token(after)).status).to.equal(200);
    expect((await logIn(after)).status).to.equal(200);
    expect((await token(before)).status).to.equal(401);
    expect((await logIn(before)).status).to.equal(401);
  });
});

describe('wallet admin commands (in process, in memory)', () => {
  it('when tenant and user commands are misused, then usage errors and refusals are reported with their reason', async () => {
    const service = await openService(testConfig({ PERSISTENCE: 'memory' }), silentLog);
    const go = (...args: string[]) => runAdmin([...args, '--json'], ADMIN_COMMANDS, async () => adminUseCases(service));
    try {
      const created = JSON.parse((await go('tenant', 'create', '--name', 'Mem')).stdout) as { tenantId: string; clientSecret: string };
      expect(created.clientSecret).to.match(/^pbcs_[0-9a-f]{64}$/);
      expect(JSON.parse((await go('tenant', 'create', '--name', 'X', '--currency', 'baht')).stderr).error.reason).to.equal(
        'invalid-request',
      );
      expect((await go('tenant', 'create')).exitCode).to.equal(2);
      expect(JSON.parse((await go('user', 'create', '--tenant', 'tnt_nobody')).stderr).error.reason).to.equal('tenant-not-found');
      expect((await go('user', 'create', '--tenant', created.tenantId, '--password', 'no email here')).exitCode).to.equal(2);
      const first = await go('user', 'create', '--tenant', created.tenantId, '--external-ref', 'dup');
      expect(JSON.parse(first.stdout).userId).to.match(/^usr_/);
      expect(JSON.parse((await go('user', 'create', '--tenant', created.tenantId, '--external-ref', 'dup')).stderr).error.reason).to.equal(
        'user-exists',
      );
      const rotated = JSON.parse((await go('signing-key', 'rotate')).stdout) as { kid: string; previousKid: string };
      expect(rotated.kid).to.be.a('string');
      expect(rotated.previousKid).to.be.a('string').and.not.equal(rotated.kid);
    } finally {
      await service.close();
    }
  });
});
