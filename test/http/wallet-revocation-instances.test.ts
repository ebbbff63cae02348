import { expect } from 'chai';
import { twoInstances, type TestApp } from '../support/app.js';
import { eventually, unique } from '../support/builders.js';
import { reasonIn } from '../support/errors.js';
import {
  basicAuth,
  bearer,
  buildPasswordUser,
  buildTenant,
  delegatedToken,
  formPost,
  login,
  machineToken,
  testAddress,
  type TestTenant,
} from '../support/wallet-builders.js';
import { databaseKind } from '../support/database.js';
import type { TokenRevocationList } from '../../src/domain/identity/token-revocation.port.js';

/**
 * Two instances on one database, each holding revoked tokens and wallet users in memory. A
 * revocation, a sign-out or a disabled user made through one must be refused by the other
 * within a second, and by the first at once.
 */
describe('token revocation and disabled users across two instances', () => {
  const apps = twoInstances();
  let tenant: TestTenant;
  let machine: string;
  before(async () => {
    tenant = await buildTenant(apps.a.service);
    machine = await machineToken(apps.a, tenant);
  });

  const balance = (app: TestApp, token: string) => app.request('/me/balance', { headers: bearer(token) });
  const refusedOn = async (app: TestApp, token: string): Promise<boolean> => {
    const res = await balance(app, token);
    return res.status === 401 && (await reasonIn(res)) === 'invalid-token';
  };
  const introspect = async (app: TestApp, token: string) =>
    (await (
      await app.request('/oauth/introspect', formPost({ token }, { authorization: basicAuth(tenant.clientId, tenant.clientSecret) }))
    ).json()) as {
      active: boolean;
    };
  const disable = (app: TestApp, userId: string, disabled = true) => app.service.core.admin.setWalletUserDisabled.execute(userId, disabled);

  it('when a token is revoked on A, then A refuses it at once and B within a second', async () => {
    const user = await delegatedToken(apps.a, machine);
    // Both instances have verified (and cached) the token before it is revoked.
    expect((await balance(apps.a, user.token)).status).to.equal(200);
    expect((await balance(apps.b, user.token)).status).to.equal(200);
    const res = await apps.a.request(
      '/oauth/revoke',
      formPost({ token: user.token }, { authorization: basicAuth(tenant.clientId, tenant.clientSecret) }),
    );
    expect(res.status).to.equal(200);
    expect(await refusedOn(apps.a, user.token)).to.equal(true);
    const ms = await eventually(() => refusedOn(apps.b, user.token), 1000, 'B refuses the revoked token');
    expect(ms).to.be.below(1000);
    expect((await introspect(apps.b, user.token)).active).to.equal(false);
  });

  it('when a holder signs out on B, then A refuses that token within a second', async () => {
    const user = await delegatedToken(apps.a, machine);
    expect((await balance(apps.a, user.token)).status).to.equal(200);
    expect((await apps.b.request('/auth/logout', { method: 'POST', headers: bearer(user.token) })).status).to.equal(204);
    expect(await refusedOn(apps.b, user.token)).to.equal(true);
    await eventually(() => refusedOn(apps.a, user.token), 1000, 'A refuses the signed-out token');
  });

  it('when an instance starts after a revocation, then it refuses the token from its first request (the set is loaded at start)', async function () {
    this.timeout(60_000);
    // A third service on the one embedded database is not a deployment: the folder has one owner process.
    if ((await databaseKind()) !== 'postgres') this.skip();
    const { startTestApp } = await import('../support/app.js');
    const user = await delegatedToken(apps.a, machine);
    await apps.a.service.core.identity.logOut.execute(await apps.a.service.ports.tokenVerifier.inspect(user.token));
    const late = await startTestApp();
    try {
      const revocations = late.service.ports.tokenRevocations as TokenRevocationList;
      expect(revocations.isRevoked(decodeJti(user.token))).to.equal(true);
      expect(await refusedOn(late, user.token)).to.equal(true);
    } finally {
      await late.stop();
    }
  });

  it('when an instance has lost its change feed, then it still refuses a token revoked elsewhere (it asks the database)', async function () {
    this.timeout(60_000);
    // A third service on the one embedded database is not a deployment: the folder has one owner process.
    if ((await databaseKind()) !== 'postgres') this.skip();
    const { startTestApp } = await import('../support/app.js');
    const deaf = await startTestApp();
    try {
      const user = await delegatedToken(apps.a, machine);
      expect((await balance(deaf, user.token)).status).to.equal(200);
      await deaf.service.ports.changes!.stop();
      await apps.a.request(
        '/oauth/revoke',
        formPost({ token: user.token }, { authorization: basicAuth(tenant.clientId, tenant.clientSecret) }),
      );
      expect(await refusedOn(deaf, user.token)).to.equal(true);
    } finally {
      await deaf.stop();
    }
  });

  it('when a token was never revoked, then checking it needs no database read on a healthy instance', async () => {
    const user = await delegatedToken(apps.a, machine);
    const revocations = apps.b.service.ports.tokenRevocations;
    // Synchronously false: the answer came from memory, not from a query.
    expect(revocations.isRevoked(decodeJti(user.token))).to.equal(false);
  });

  it('when a user is disabled on A, then the user’s tokens are refused on A at once and on B within a second; the ledger stays', async function () {
    this.timeout(60_000);
    const pwd = await buildPasswordUser(apps.a, machine);
    const topUp = await apps.a.request(`/users/${pwd.userId}/top-ups`, {
      method: 'POST',
      headers: { ...bearer(machine), 'content-type': 'application/json', 'idempotency-key': `k-${unique()}` },
      body: JSON.stringify({ amount: { amount: 5000, currency: 'THB' }, reference: `r-${unique()}` }),
    });
    expect(topUp.status).to.equal(201);
    const signIn = (app: TestApp, password = pwd.password) =>
      login(app, { clientId: tenant.clientId, email: pwd.email, password }, testAddress());
    const token = ((await (await signIn(apps.a)).json()) as { access_token: string }).access_token;
    expect((await balance(apps.a, token)).status).to.equal(200);
    expect((await balance(apps.b, token)).status).to.equal(200);

    const disabled = await disable(apps.a, pwd.userId);
    expect(disabled).to.include({ userId: pwd.userId, status: 'DISABLED' });
    expect(await refusedOn(apps.a, token)).to.equal(true);
    const ms = await eventually(() => refusedOn(apps.b, token), 1000, 'B refuses the disabled user’s token');
    expect(ms).to.be.below(1000);
    expect((await introspect(apps.b, token)).active).to.equal(false);

    // Login answers as for a wrong password (nothing confirms the password); delegation says why.
    for (const app of [apps.a, apps.b]) {
      const refused = await signIn(app);
      expect(refused.status).to.equal(401);
      expect(await reasonIn(refused)).to.equal('invalid-credentials');
      expect(await reasonIn(await signIn(app, 'not the password'))).to.equal('invalid-credentials');
    }
    const users = (await (await apps.b.request(`/users/${pwd.userId}`, { headers: bearer(machine) })).json()) as {
      externalUserRef: string;
      balance: { amount: number };
    };
    expect(users.balance.amount).to.equal(5000);
    const delegated = await apps.b.request('/auth/delegated-token', {
      method: 'POST',
      headers: { ...bearer(machine), 'content-type': 'application/json' },
      body: JSON.stringify({ externalUserRef: users.externalUserRef }),
    });
    expect(delegated.status).to.equal(403);
    expect(await reasonIn(delegated)).to.equal('user-disabled');
    const history = (await (await apps.b.request(`/transactions?userId=${pwd.userId}`, { headers: bearer(machine) })).json()) as {
      data: unknown[];
    };
    expect(history.data).to.have.length(1);

    // Enabled again: a new sign-in works everywhere, the token from before stays dead.
    await disable(apps.b, pwd.userId, false);
    await new Promise((r) => setTimeout(r, 1100)); // a token issued in the cut-off's second counts as before it
    // Login reads the person from the database, not from a cache: it works again at once.
    const signedIn = await signIn(apps.a);
    expect(signedIn.status).to.equal(200);
    const fresh = ((await signedIn.json()) as { access_token: string }).access_token;
    expect((await balance(apps.a, fresh)).status).to.equal(200);
    await eventually(async () => (await balance(apps.b, fresh)).status === 200, 1000, 'B accepts the new token');
    expect(((await (await balance(apps.b, fresh)).json()) as { available: { amount: number } }).available.amount).to.equal(5000);
    expect(await refusedOn(apps.a, token)).to.equal(true);
    expect(await refusedOn(apps.b, token)).to.equal(true);
  });

  it('when a delegated user is disabled, then its delegated token stops working on both instances', async () => {
    const user = await delegatedToken(apps.a, machine);
    expect((await balance(apps.b, user.token)).status).to.equal(200);
    await disable(apps.b, user.userId);
    await eventually(async () => (await refusedOn(apps.a, user.token)) && (await refusedOn(apps.b, user.token)), 1000, 'both refuse');
  });
});

const decodeJti = (token: string): string =>
  (JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString('utf8')) as { jti: string }).jti;
