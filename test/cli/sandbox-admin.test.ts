import { expect } from 'chai';
import { adminProcess } from '../support/cli.js';
import { json, startTestApp, type TestApp } from '../support/app.js';
import { buildAgent, unique } from '../support/builders.js';
import { dateAhead } from '../support/booking-builders.js';
import { databaseUrl } from '../support/database.js';
import { bearer, formPost, login, testAddress } from '../support/wallet-builders.js';

type Body = Record<string, any>;

interface Sandbox {
  name: string;
  agent: { agentId: string; apiKey: string; channel: string; funds: number };
  tenant: { tenantId: string; clientId: string; clientSecret: string; user: { userId: string; email: string; password: string } };
  operator: { code: string; apiKey: string; scheduleId: string | null };
}

describe('sandbox create (a separate process on PostgreSQL)', function () {
  this.timeout(180_000);
  let url: string | null;
  let app: TestApp;
  before(async function () {
    url = await databaseUrl();
    // The embedded PGlite of a test run lives in this process; another process cannot open it.
    if (url === null) this.skip();
    app = await startTestApp({ env: { TRUST_PROXY: '1' } });
    await app.service.core.catalogue.seed.execute();
  });
  after(async () => {
    if (app) await app.stop();
  });

  const call = async (path: string, init: RequestInit = {}): Promise<{ status: number; body: Body }> => {
    const res = await app.request(path, init);
    return { status: res.status, body: (await res.json()) as Body };
  };

  it('when an operator makes a sandbox, then its three credentials say test, and each works on its own surface', async () => {
    const run = await adminProcess(url!, 'sandbox', 'create', '--name', `Acme ${unique()}`, '--json');
    expect(run.code, run.stderr).to.equal(0);
    const s = JSON.parse(run.stdout) as Sandbox;
    expect(s.agent.apiKey).to.match(/^pbk_test_/);
    expect(s.tenant.clientId).to.match(/^cli_test_/);
    expect(s.operator.apiKey).to.match(/^pbo_test_/);
    expect(s.operator.scheduleId).to.be.a('string');

    // The agent: a sandbox account, prepaid and funded.
    const account = await call('/api/v1/agent/account', { headers: { 'X-API-KEY': s.agent.apiKey } });
    expect([account.status, account.body.livemode, account.body.billing.mode]).to.deep.equal([200, false, 'prepaid']);
    expect(account.body.billing.balance.amount).to.equal(s.agent.funds).and.to.be.greaterThan(0);

    // The tenant: its secret gets a machine token, its user logs in.
    const token = await app.request(
      '/oauth/token',
      formPost({ grant_type: 'client_credentials', client_id: s.tenant.clientId, client_secret: s.tenant.clientSecret }),
    );
    expect(token.status).to.equal(200);
    const loggedIn = await login(
      app,
      { clientId: s.tenant.clientId, email: s.tenant.user.email, password: s.tenant.user.password },
      testAddress(),
    );
    expect(loggedIn.status).to.equal(200);
    const me = await app.request('/me', { headers: bearer(((await loggedIn.json()) as { access_token: string }).access_token) });
    expect(((await me.json()) as { id?: string; userId?: string }).id ?? '').to.equal(s.tenant.user.userId);

    // The operator runs a bus only sandbox agents see; it answers their orders on its own surface.
    const date = dateAhead(20);
    const trips = (key: string) =>
      call(`/api/v1/express-bus/trips?fromCityId=cty_bangkok&toCityId=cty_huahin&date=${date}`, { headers: { 'X-API-KEY': key } });
    const seen = (await trips(s.agent.apiKey)).body.data as Body[];
    const trip = seen.find((t) => t.operator.code === s.operator.code);
    expect(trip, JSON.stringify(seen)).to.not.equal(undefined);
    const live = await buildAgent(app.service);
    expect(((await trips(live.apiKey)).body.data as Body[]).map((t) => t.operator.code)).to.not.include(s.operator.code);
    const quote = await call(
      '/api/v1/express-bus/quotes',
      json('POST', { tripId: trip!.id, passengers: 1 }, { 'X-API-KEY': s.agent.apiKey }),
    );
    expect(quote.status, JSON.stringify(quote.body)).to.equal(201);
    const liveQuote = await call(
      '/api/v1/express-bus/quotes',
      json('POST', { tripId: trip!.id, passengers: 1 }, { 'X-API-KEY': live.apiKey }),
    );
    expect([liveQuote.status, liveQuote.body.reason]).to.deep.equal([404, 'trip-not-found']);
    const contact = { name: 'Malee S.', email: 'malee@example.com' };
    const placed = await call('/api/v1/orders', json('POST', { quoteId: quote.body.id, contact }, { 'X-API-KEY': s.agent.apiKey }));
    expect([placed.status, placed.body.status, placed.body.livemode]).to.deep.equal([201, 'PENDING', false]);
    const listed = await call('/operator/v1/orders?status=PENDING', { headers: { 'X-API-KEY': s.operator.apiKey } });
    expect((listed.body.data as Body[]).map((o) => o.id)).to.deep.equal([placed.body.id]);
    const confirmed = await call(
      `/operator/v1/orders/${placed.body.id}/confirm`,
      json('POST', { operatorReference: 'SBX-42' }, { 'X-API-KEY': s.operator.apiKey }),
    );
    expect([confirmed.status, confirmed.body.status]).to.deep.equal([200, 'CONFIRMED']);
    const after = await call('/api/v1/agent/account', { headers: { 'X-API-KEY': s.agent.apiKey } });
    expect(after.body.billing.balance.amount).to.equal(s.agent.funds - placed.body.price.amount);
  });

  it('when the name is missing or too long, then a usage error (exit 2) or a refusal (exit 1), and nothing is printed as made', async () => {
    const missing = await adminProcess(url!, 'sandbox', 'create', '--json');
    expect(missing.code).to.equal(2);
    expect(missing.stderr).to.include('--name is required');
    const long = await adminProcess(url!, 'sandbox', 'create', '--name', 'x'.repeat(101), '--json');
    expect(long.code).to.equal(1);
    expect(long.stdout).to.not.include('pbk_test_');
  });
});
