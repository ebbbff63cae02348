import { expect } from 'chai';
import { reasonIn } from '../support/errors.js';
import { startTestApp, type TestApp } from '../support/app.js';
import { unique } from '../support/builders.js';
import { randomInt } from 'node:crypto';

const address = (): string => `10.${randomInt(0, 255)}.${randomInt(0, 255)}.${randomInt(1, 255)}`;
import { basicAuth, bearer, buildTenant, delegatedToken, formPost, machineToken, type TestTenant } from '../support/wallet-builders.js';

/** The request-rate limits on the wallet's token routes (the login lockout is tested with login). */
describe('wallet request-rate limits', () => {
  let app: TestApp;
  let tenant: TestTenant;
  before(async () => {
    app = await startTestApp({
      env: {
        RATE_LIMITS: 'on',
        RATE_LIMIT_TOKEN: '3/60',
        RATE_LIMIT_DELEGATED: '2/60',
        RATE_LIMIT_LOGIN: '2/60',
        RATE_LIMIT_PAYMENTS: '2/60',
        TRUST_PROXY: '1',
      },
    });
    tenant = await buildTenant(app.service);
  });
  after(() => app.stop());

  const reason = reasonIn;

  it('when a client asks for more tokens than its budget, then 429 temporarily_unavailable (RFC 6749 JSON) with Retry-After', async () => {
    const from = address();
    const ask = () =>
      app.request(
        '/oauth/token',
        formPost(
          { grant_type: 'client_credentials' },
          { authorization: basicAuth(tenant.clientId, tenant.clientSecret), 'x-forwarded-for': from },
        ),
      );
    for (let i = 0; i < 3; i += 1) expect((await ask()).status).to.equal(200);
    const limited = await ask();
    expect(limited.status).to.equal(429);
    expect(limited.headers.get('retry-after')).to.match(/^\d+$/);
    expect(limited.headers.get('content-type')).to.match(/^application\/json/);
    expect(((await limited.json()) as { error: string }).error).to.equal('temporarily_unavailable');
  });

  it('when someone else spends requests with a client id from another address, then the client keeps its budget', async () => {
    const other = await buildTenant(app.service);
    const [spender, owner] = [address(), address()];
    for (let i = 0; i < 5; i += 1) {
      await app.request(
        '/oauth/token',
        formPost({ grant_type: 'client_credentials' }, { authorization: basicAuth(other.clientId, 'wrong'), 'x-forwarded-for': spender }),
      );
    }
    const own = await app.request(
      '/oauth/token',
      formPost(
        { grant_type: 'client_credentials' },
        { authorization: basicAuth(other.clientId, other.clientSecret), 'x-forwarded-for': owner },
      ),
    );
    expect(own.status).to.equal(200);
  });

  it('when a backend mints delegated tokens beyond its budget, then 429 rate-limited', async () => {
    const t = await buildTenant(app.service);
    const machine = await machineToken(app, t);
    const mint = () =>
      app.request('/auth/delegated-token', {
        method: 'POST',
        headers: { ...bearer(machine), 'content-type': 'application/json' },
        body: JSON.stringify({ externalUserRef: `ref-${unique()}` }),
      });
    expect((await mint()).status).to.equal(200);
    expect((await mint()).status).to.equal(200);
    const limited = await mint();
    expect(limited.status).to.equal(429);
    expect(await reason(limited)).to.equal('rate-limited');
  });

  it('when one address sends too many logins, then 429 rate-limited before any password is checked', async () => {
    const from = address();
    const send = () =>
      app.request('/auth/login', {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-forwarded-for': from },
        body: JSON.stringify({ clientId: tenant.clientId, email: `nobody-${unique()}@example.com`, password: 'x' }),
      });
    expect((await send()).status).to.equal(401);
    expect((await send()).status).to.equal(401);
    const limited = await send();
    expect(limited.status).to.equal(429);
    expect(await reason(limited)).to.equal('rate-limited');
  });

  it('when a wallet user pays more often than the budget, then 429 rate-limited; another user is unaffected', async () => {
    const t = await buildTenant(app.service);
    const machine = await machineToken(app, t);
    const payer = await delegatedToken(app, machine);
    const other = await delegatedToken(app, machine);
    for (const u of [payer, other]) {
      const top = await app.request(`/users/${u.userId}/top-ups`, {
        method: 'POST',
        headers: { ...bearer(machine), 'content-type': 'application/json' },
        body: JSON.stringify({ amount: { amount: 10_000, currency: 'THB' }, reference: `top-${unique()}` }),
      });
      expect(top.status).to.equal(201);
    }
    const pay = (token: string) =>
      app.request('/me/payments', {
        method: 'POST',
        headers: { ...bearer(token), 'content-type': 'application/json' },
        body: JSON.stringify({ amount: { amount: 100, currency: 'THB' }, reference: `pay-${unique()}` }),
      });
    expect((await pay(payer.token)).status).to.equal(201);
    expect((await pay(payer.token)).status).to.equal(201);
    const limited = await pay(payer.token);
    expect(limited.status).to.equal(429);
    expect(await reason(limited)).to.equal('rate-limited');
    expect((await pay(other.token)).status).to.equal(201);
  });
});
