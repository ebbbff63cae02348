import { expect } from 'chai';
import { json, startTestApp, type TestApp } from '../support/app.js';
import { unique } from '../support/builders.js';
import { ManualClock } from '../support/clock.js';
import { basicAuth, bearer, buildTenant, formPost, login, machineToken, testAddress, type TestTenant } from '../support/wallet-builders.js';
import { WALLET_SECURITY_EVENT_TYPES } from '../../src/domain/security-events/security-event.js';

type Body = Record<string, any>;

/**
 * The tenant's security trail over HTTP on the test database (CONTRACT §5.2, wallet half):
 * `GET /security-events` with the backend's machine token.
 */
describe('the tenant security trail over HTTP', () => {
  const clock = new ManualClock();
  let app: TestApp;

  const trail = async (machine: string, query = '?limit=100'): Promise<Body[]> => {
    const res = await app.request(`/security-events${query}`, { headers: bearer(machine) });
    const body = (await res.json()) as Body;
    expect(res.status, JSON.stringify(body)).to.equal(200);
    return body.data as Body[];
  };
  const createUser = async (machine: string, body: Body) => {
    const res = await app.request('/users', json('POST', body, { ...bearer(machine), 'X-Request-Id': `req-create-${unique()}` }));
    expect(res.status).to.equal(201);
    return (await res.json()) as Body;
  };

  before(async () => {
    app = await startTestApp({ env: { TRUST_PROXY: '1', RATE_LIMITS: 'off' }, clock });
  });
  after(async () => {
    clock.reset();
    await app?.stop();
  });

  it('when a tenant’s secret, tokens and users change, then every wallet event type of those changes is in its trail, with who did it and none of the secrets', async () => {
    const tenant: TestTenant = await buildTenant(app.service);
    let machine = await machineToken(app, tenant);
    const email = `Person.${unique()}@Example.com`;
    const password = `pw-${unique()}-${unique()}`;
    const user = await createUser(machine, { externalUserRef: `ref-${unique()}`, email, password });
    const address = testAddress();
    // A failed login, then a good one.
    expect((await login(app, { clientId: tenant.clientId, email, password: 'wrong password here' }, address)).status).to.equal(401);
    const good = await login(app, { clientId: tenant.clientId, email, password }, address);
    expect(good.status).to.equal(200);
    const userToken = ((await good.json()) as Body).access_token as string;
    // A delegated token (which creates its user), a logout and a revocation by the client.
    const ref = `deleg-${unique()}`;
    const delegated = await app.request('/auth/delegated-token', json('POST', { externalUserRef: ref }, bearer(machine)));
    expect(delegated.status).to.equal(200);
    const delegatedBody = (await delegated.json()) as Body;
    expect((await app.request('/auth/logout', { method: 'POST', headers: bearer(userToken) })).status).to.be.within(200, 299);
    const revokeRequestId = `req-revoke-${unique()}`;
    const revoke = await app.request(
      '/oauth/revoke',
      formPost(
        { token: delegatedBody.access_token as string },
        { authorization: basicAuth(tenant.clientId, tenant.clientSecret), 'x-request-id': revokeRequestId },
      ),
    );
    expect(revoke.status).to.equal(200);
    // Revoking it again changes nothing, and records nothing more.
    const again = await app.request(
      '/oauth/revoke',
      formPost({ token: delegatedBody.access_token as string }, { authorization: basicAuth(tenant.clientId, tenant.clientSecret) }),
    );
    expect(again.status).to.equal(200);
    // The operator disables and enables the user, and rotates the secret.
    await app.service.core.admin.setWalletUserDisabled.execute(user.id as string, true);
    await app.service.core.admin.setWalletUserDisabled.execute(user.id as string, false);
    const rotated = await app.service.core.admin.rotateClientSecret.execute(tenant.tenantId, 3600);
    machine = await machineToken(app, { ...tenant, clientSecret: rotated.clientSecret });
    // Five more failures lock the account.
    for (let i = 0; i < 6; i++) await login(app, { clientId: tenant.clientId, email, password: `wrong-${i}-password` }, testAddress());

    const events = await trail(machine);
    const types = new Set(events.map((e) => e.type));
    for (const type of WALLET_SECURITY_EVENT_TYPES) {
      // Registered elsewhere (§5.3 keys, webhook endpoints): covered by their own tests.
      if (type === 'client.jwks_updated' || type.startsWith('webhook_endpoint.')) continue;
      expect(types.has(type), `${type} in ${[...types].join(', ')}`).to.equal(true);
    }
    const one = (type: string, subjectId?: string) =>
      events.filter((e) => e.type === type && (subjectId === undefined || e.subject.id === subjectId));
    expect(one('user.created', user.id as string)[0]).to.deep.include({ actor: { kind: 'client', id: tenant.clientId } });
    expect(one('user.created', user.id as string)[0]!.requestId).to.match(/^req-create-/);
    const delegatedUser = events.filter((e) => e.type === 'user.created' && e.details.externalUserRef === ref);
    expect(delegatedUser).to.have.length(1);
    expect(delegatedUser[0]!.actor).to.deep.equal({ kind: 'client', id: tenant.clientId });
    const issued = one('delegated_token.issued')[0]!;
    expect(issued).to.deep.include({
      actor: { kind: 'client', id: tenant.clientId },
      subject: { kind: 'wallet_user', id: delegatedUser[0]!.subject.id },
    });
    expect(issued.details).to.deep.equal({ externalUserRef: ref });
    expect(one('user.login_succeeded')[0]!.actor).to.deep.equal({ kind: 'user', id: user.id, amr: ['pwd'] });
    expect(one('user.login_succeeded')[0]!.ip).to.equal(address);
    expect(one('user.disabled')[0]!.actor.kind).to.equal('operator');
    expect(one('user.enabled')[0]!.actor.kind).to.equal('operator');
    expect(one('client_secret.rotated')[0]).to.deep.include({
      actor: { kind: 'operator', id: 'operator' },
      subject: { kind: 'client', id: tenant.clientId },
    });
    expect(one('user.locked_out')).to.have.length(1);
    // Whoever typed the email is not known to be its holder: the actor is anonymous, the subject the account.
    for (const type of ['user.login_failed', 'user.locked_out']) {
      expect(one(type)[0], type).to.deep.include({
        actor: { kind: 'user', id: 'anonymous' },
        subject: { kind: 'wallet_user', id: user.id },
      });
      expect(one(type)[0]!.ip, type).to.be.a('string');
    }
    const revokedBy = one('token.revoked')
      .map((e) => e.actor.kind)
      .sort();
    expect(revokedBy).to.deep.equal(['client', 'user']);
    // The client's revocation says which request made it.
    expect(one('token.revoked').find((e) => e.actor.kind === 'client')!.requestId).to.equal(revokeRequestId);
    // At most one failed login per user and minute, though seven failed within it.
    expect(one('user.login_failed').length).to.be.within(1, 2);
    const text = JSON.stringify(events);
    for (const secret of [password, tenant.clientSecret, rotated.clientSecret, userToken, delegatedBody.access_token as string, machine]) {
      expect(text.includes(secret), 'a secret in the trail').to.equal(false);
    }
  });

  it('when failed logins repeat within a minute, then one user.login_failed is kept for it; the next minute keeps another', async () => {
    const tenant = await buildTenant(app.service);
    const machine = await machineToken(app, tenant);
    const email = `Once.${unique()}@Example.com`;
    await createUser(machine, { externalUserRef: `ref-${unique()}`, email, password: `pw-${unique()}-${unique()}` });
    const start = Math.ceil(clock.now().getTime() / 60_000) * 60_000 + 1_000;
    clock.set(new Date(start));
    try {
      for (let i = 0; i < 3; i++) await login(app, { clientId: tenant.clientId, email, password: 'not the password' }, testAddress());
      expect(await trail(machine, '?type=user.login_failed')).to.have.length(1);
      clock.set(new Date(start + 60_000));
      await login(app, { clientId: tenant.clientId, email, password: 'not the password' }, testAddress());
      expect(await trail(machine, '?type=user.login_failed')).to.have.length(2);
    } finally {
      clock.reset();
    }
  });

  it('when DPoP is required and a sign-in brings no proof or a bad one, then a right and a wrong password get the same answer, and the attempt is in the trail', async () => {
    const tenant = await buildTenant(app.service);
    const machine = await machineToken(app, tenant);
    const email = `Proof.${unique()}@Example.com`;
    const password = `pw-${unique()}-${unique()}`;
    const user = await createUser(machine, { externalUserRef: `ref-${unique()}`, email, password });
    await app.service.core.admin.setTenantClientSettings.setDpopRequired(tenant.tenantId, true);
    const answer = async (pw: string, proof?: string) => {
      const res = await app.request('/auth/login', {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-forwarded-for': testAddress(), ...(proof === undefined ? {} : { dpop: proof }) },
        body: JSON.stringify({ clientId: tenant.clientId, email, password: pw }),
      });
      const body = (await res.json()) as Body;
      return { status: res.status, reason: body.reason, error: body.error, title: body.title, detail: body.detail };
    };
    const start = Math.ceil(clock.now().getTime() / 60_000) * 60_000 + 1_000;
    clock.set(new Date(start));
    try {
      const rightWithout = await answer(password);
      const wrongWithout = await answer('not the password');
      expect(rightWithout).to.deep.equal(wrongWithout);
      expect(rightWithout).to.include({ status: 400, reason: 'invalid-dpop-proof', error: 'invalid_dpop_proof' });
      // A proof that is no proof: the same whatever the password.
      const rightBad = await answer(password, 'not-a-proof');
      expect(rightBad).to.deep.equal(await answer('not the password', 'not-a-proof'));
      expect(rightBad).to.include({ status: 400, reason: 'invalid-dpop-proof' });
      const failed = await trail(machine, '?type=user.login_failed');
      // Four failures within one minute: one event, the first, naming the refused proof.
      expect(failed).to.have.length(1);
      expect(failed[0]).to.deep.include({
        actor: { kind: 'user', id: 'anonymous' },
        subject: { kind: 'wallet_user', id: user.id },
        details: { reason: 'invalid-dpop-proof' },
      });
      // The next minute records the next one.
      clock.set(new Date(start + 60_000));
      await answer(password);
      expect(await trail(machine, '?type=user.login_failed')).to.have.length(2);
    } finally {
      clock.reset();
    }
  });

  it('when two tenants read their trails, then each sees its own events only; a user token is refused', async () => {
    const t = await buildTenant(app.service);
    const u = await buildTenant(app.service);
    const mt = await machineToken(app, t);
    const mu = await machineToken(app, u);
    const made = await createUser(mt, { externalUserRef: `ref-${unique()}` });
    const theirs = await trail(mu);
    expect(theirs.some((e) => e.subject.id === made.id)).to.equal(false);
    expect((await trail(mt)).some((e) => e.subject.id === made.id)).to.equal(true);
    const delegated = await app.request('/auth/delegated-token', json('POST', { externalUserRef: `r-${unique()}` }, bearer(mt)));
    const userToken = ((await delegated.json()) as Body).access_token as string;
    const refused = await app.request('/security-events', { headers: bearer(userToken) });
    expect(refused.status).to.equal(403);
  });
});
