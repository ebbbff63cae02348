import { expect } from 'chai';
import { twoInstances, type TestApp } from '../support/app.js';
import { eventually } from '../support/builders.js';
import { basicAuth, bearer, buildTenant, delegatedToken, formPost, machineToken } from '../support/wallet-builders.js';

/**
 * Two instances on one database, each caching tenants and wallet users. A change made through
 * one, or by plain SQL, must reach the other within a second; through itself, at once.
 */
describe('wallet identity cache across two instances', () => {
  const apps = twoInstances();

  const tokenStatus = async (app: TestApp, clientId: string, secret: string) =>
    (await app.request('/oauth/token', formPost({ grant_type: 'client_credentials' }, { authorization: basicAuth(clientId, secret) })))
      .status;

  it('when a client secret is reset on A, then A refuses the old secret at once and B within a second', async () => {
    const tenant = await buildTenant(apps.a.service);
    // Warm both caches with the tenant and its secret hash.
    expect(await tokenStatus(apps.a, tenant.clientId, tenant.clientSecret)).to.equal(200);
    expect(await tokenStatus(apps.b, tenant.clientId, tenant.clientSecret)).to.equal(200);
    const { clientSecret } = await apps.a.service.core.admin.resetClientSecret.execute(tenant.tenantId);
    expect(await tokenStatus(apps.a, tenant.clientId, tenant.clientSecret)).to.equal(401);
    expect(await tokenStatus(apps.a, tenant.clientId, clientSecret)).to.equal(200);
    const ms = await eventually(
      async () => (await tokenStatus(apps.b, tenant.clientId, tenant.clientSecret)) === 401,
      1000,
      'B refuses the old secret',
    );
    expect(ms).to.be.below(1000);
    expect(await tokenStatus(apps.b, tenant.clientId, clientSecret)).to.equal(200);
  });

  it('when a wallet user is deleted by SQL, then both instances refuse the user’s token within a second', async () => {
    const tenant = await buildTenant(apps.a.service);
    const machine = await machineToken(apps.a, tenant);
    const user = await delegatedToken(apps.a, machine);
    const me = (app: TestApp) => app.request('/me/balance', { headers: bearer(user.token) });
    expect((await me(apps.a)).status).to.equal(200);
    expect((await me(apps.b)).status).to.equal(200);
    await apps.a.service.db!.knex('wallet_users').where({ id: user.userId }).delete();
    await eventually(
      async () => (await me(apps.a)).status === 401 && (await me(apps.b)).status === 401,
      1000,
      'both refuse the deleted user',
    );
  });

  it('when a tenant is deleted by SQL, then both instances refuse its machine token within a second', async () => {
    const tenant = await buildTenant(apps.a.service);
    const machine = await machineToken(apps.a, tenant);
    const users = (app: TestApp) => app.request('/users', { headers: bearer(machine) });
    expect((await users(apps.a)).status).to.equal(200);
    expect((await users(apps.b)).status).to.equal(200);
    await apps.a.service.db!.knex('tenants').where({ id: tenant.tenantId }).delete();
    await eventually(
      async () => (await users(apps.a)).status === 401 && (await users(apps.b)).status === 401,
      1000,
      'both refuse the deleted tenant',
    );
  });
});
