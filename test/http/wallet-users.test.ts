import { expect } from 'chai';
import { reasonIn } from '../support/errors.js';
import { json, startTestApp, type TestApp } from '../support/app.js';
import { unique } from '../support/builders.js';
import { bearer, buildTenant, delegatedToken, machineToken, walletSuite } from '../support/wallet-builders.js';

const reason = reasonIn;

describe('wallet users (/users, /me)', () => {
  let app: TestApp;
  let machine: string;
  walletSuite({}, (suite) => ({ app, machine } = suite));

  const create = (body: unknown, token = machine) => app.request('/users', json('POST', body, bearer(token)));

  it('when the backend creates a user, then 201 with id, ref, email and createdAt; never the password', async () => {
    const ref = `ext-${unique()}`;
    const res = await create({
      externalUserRef: ref,
      email: `A.${ref}@Example.com`,
      password: 'correct horse battery',
      tenantId: 'tnt_other',
    });
    expect(res.status).to.equal(201);
    const body = (await res.json()) as Record<string, unknown>;
    expect(Object.keys(body).sort()).to.deep.equal(['createdAt', 'email', 'externalUserRef', 'id', 'livemode']);
    expect(body).to.include({ externalUserRef: ref, email: `A.${ref}@Example.com` });
    expect(body.id).to.match(/^usr_/);
    expect(new Date(body.createdAt as string).toISOString()).to.equal(body.createdAt);
    expect(res.headers.get('location')).to.equal(`/users/${String(body.id)}`);
    const read = await app.request(`/users/${String(body.id)}`, { headers: bearer(machine) });
    expect(await read.json()).to.deep.equal({ ...body, balance: { amount: 0, currency: 'THB' } });
  });

  it('when the ref or the email (in any case) is taken in the tenant, then 409 user-exists; another tenant may reuse both', async () => {
    const ref = `dup-${unique()}`;
    const email = `dup-${unique()}@example.com`;
    expect((await create({ externalUserRef: ref, email })).status).to.equal(201);
    const sameRef = await create({ externalUserRef: ref });
    expect(sameRef.status).to.equal(409);
    expect(await reason(sameRef)).to.equal('user-exists');
    const sameEmail = await create({ externalUserRef: `other-${unique()}`, email: email.toUpperCase() });
    expect(sameEmail.status).to.equal(409);
    expect(await reason(sameEmail)).to.equal('user-exists');
    const other = await machineToken(app, await buildTenant(app.service));
    expect((await create({ externalUserRef: ref, email }, other)).status).to.equal(201);
  });

  it('when the email has empty, over-long or hyphen-edged domain labels or a numeric TLD, then 400 invalid-request on email and no user', async () => {
    for (const email of [`a@${'.'.repeat(250)}x`, 'a@example..com', `a@${'b'.repeat(64)}.com`, 'a@-example.com', 'a@example.123']) {
      const ref = `r-${unique()}`;
      const res = await create({ externalUserRef: ref, email, password: 'violet tram 42 lantern' });
      expect(res.status, email).to.equal(400);
      const body = (await res.json()) as { reason: string; errors: Array<{ path: string }> };
      expect(body.reason).to.equal('invalid-request');
      expect(body.errors.map((e) => e.path)).to.deep.equal(['email']);
      // Nothing was stored: the ref is still free.
      expect((await create({ externalUserRef: ref })).status).to.equal(201);
    }
  });

  it('when the body is invalid (bad ref, bad email, short password, password without email), then 400 invalid-request', async () => {
    for (const body of [
      {},
      { externalUserRef: 'has space' },
      { externalUserRef: `r-${unique()}`, email: 'not-an-email' },
      { externalUserRef: `r-${unique()}`, email: `e${unique()}@x.co`, password: 'short' },
      { externalUserRef: `r-${unique()}`, password: 'long enough pw' },
    ]) {
      const res = await create(body);
      expect(res.status, JSON.stringify(body)).to.equal(400);
      expect(await reason(res)).to.equal('invalid-request');
    }
    const forged = await app.request('/users?cursor=bm9wZQ', { headers: bearer(machine) });
    expect(await forged.json()).to.deep.include({
      message: 'The cursor is not valid.',
      errors: [{ path: 'cursor', message: 'is not a cursor this service issued' }],
    });
  });

  it('when the password is a common or breached one, or a short run repeated, then 400 password-too-common and no user is made', async () => {
    for (const password of ['password', '12345678', 'qwertyuiop', 'aaaaaaaa', 'PassWord1', 'abababab', '123123123']) {
      const ref = `weak-${unique()}`;
      const res = await create({ externalUserRef: ref, email: `${ref}@example.com`, password });
      expect(res.status, password).to.equal(400);
      const body = (await res.json()) as { reason: string; message: string };
      expect(body.reason, password).to.equal('password-too-common');
      expect(body.message, password).to.match(/too common/);
      const listed = (await (await app.request('/users?limit=100', { headers: bearer(machine) })).json()) as {
        data: Array<{ externalUserRef: string }>;
      };
      expect(
        listed.data.some((u) => u.externalUserRef === ref),
        password,
      ).to.equal(false);
    }
    const ref = `strong-${unique()}`;
    expect((await create({ externalUserRef: ref, email: `${ref}@example.com`, password: 'violet tram 42 lantern' })).status).to.equal(201);
  });

  it('when users are listed, then only the tenant’s users come back, in keyset pages of `limit` with a cursor', async () => {
    const t = await buildTenant(app.service);
    const m = await machineToken(app, t);
    const ids: string[] = [];
    for (let i = 0; i < 5; i++)
      ids.push(((await (await create({ externalUserRef: `list-${i}-${unique()}` }, m)).json()) as { id: string }).id);
    await create({ externalUserRef: `noise-${unique()}` }); // another tenant's user
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const res: Response = await app.request(`/users?limit=2${cursor ? `&cursor=${cursor}` : ''}`, { headers: bearer(m) });
      expect(res.status).to.equal(200);
      const page = (await res.json()) as { data: Array<{ id: string }>; nextCursor: string | null };
      expect(page.data.length).to.be.at.most(2);
      seen.push(...page.data.map((u) => u.id));
      cursor = page.nextCursor;
      pages += 1;
    } while (cursor !== null && pages < 10);
    expect(seen).to.deep.equal(ids);
    expect(pages).to.equal(3);
    const all = (await (await app.request('/users', { headers: bearer(m) })).json()) as { data: unknown[]; nextCursor: null };
    expect(all.data).to.have.length(5);
    expect(all.nextCursor).to.equal(null);
  });

  it('when limit or cursor are out of range or forged, then 400 invalid-request', async () => {
    for (const q of ['limit=0', 'limit=101', 'limit=abc', 'cursor=%%%', 'cursor=bm9wZQ']) {
      const res = await app.request(`/users?${q}`, { headers: bearer(machine) });
      expect(res.status, q).to.equal(400);
      expect(await reason(res)).to.equal('invalid-request');
    }
  });

  it('when a tenant asks for another tenant’s user, then 404 user-not-found, as for an unknown id', async () => {
    const other = await buildTenant(app.service);
    const otherMachine = await machineToken(app, other);
    const theirs = await delegatedToken(app, otherMachine);
    for (const id of [theirs.userId, `usr_${unique()}`]) {
      const res = await app.request(`/users/${id}`, { headers: bearer(machine) });
      expect(res.status).to.equal(404);
      expect(await reason(res)).to.equal('user-not-found');
    }
    const list = (await (await app.request('/users?limit=100', { headers: bearer(machine) })).json()) as { data: Array<{ id: string }> };
    expect(list.data.map((u) => u.id)).not.to.include(theirs.userId);
  });

  it('when a user token calls a machine operation, then 403 machine-token-required', async () => {
    const user = await delegatedToken(app, machine);
    for (const [path, init] of [
      ['/users', {}],
      [`/users/${user.userId}`, {}],
      ['/users', json('POST', { externalUserRef: `x-${unique()}` })],
    ] as const) {
      const res = await app.request(path, { ...init, headers: { ...(init as RequestInit).headers, ...bearer(user.token) } });
      expect(res.status, path).to.equal(403);
      expect(await reason(res)).to.equal('machine-token-required');
    }
  });

  describe('GET /me', () => {
    it('when a user token calls it, then it returns that person, whatever parameters say', async () => {
      const a = await delegatedToken(app, machine);
      const b = await delegatedToken(app, machine);
      const res = await app.request(`/me?userId=${b.userId}&id=${b.userId}`, { headers: { ...bearer(a.token), 'X-User-Id': b.userId } });
      expect(res.status).to.equal(200);
      const me = (await res.json()) as Record<string, unknown>;
      expect(me).to.include({ id: a.userId, externalUserRef: a.externalUserRef });
      expect(Object.keys(me).sort()).to.deep.equal(['createdAt', 'email', 'externalUserRef', 'id', 'livemode']);
    });

    it('when a machine token calls it, then 401 not-a-wallet-user with the exact message', async () => {
      const res = await app.request('/me', { headers: bearer(machine) });
      expect(res.status).to.equal(401);
      const body = (await res.json()) as Record<string, unknown>;
      expect(body).to.include({ reason: 'not-a-wallet-user', message: 'Authenticated principal is not a wallet user.' });
    });

    it('when no token is sent, then 401 invalid-token with WWW-Authenticate', async () => {
      const res = await app.request('/me');
      expect(res.status).to.equal(401);
      expect(res.headers.get('www-authenticate')).to.equal('Bearer error="invalid_token"');
      expect(await reason(res)).to.equal('invalid-token');
    });
  });
});

describe('wallet routes under WALLET_BASE_PATH', () => {
  let app: TestApp;
  before(async () => {
    app = await startTestApp({ env: { WALLET_BASE_PATH: '/wallet' } });
  });
  after(() => app.stop());

  it('when a base path is configured, then the token and user routes live under it and the JWKS stays at the root', async () => {
    const t = await buildTenant(app.service);
    const res = await app.request('/wallet/oauth/token', {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'client_credentials', client_id: t.clientId, client_secret: t.clientSecret }).toString(),
    });
    expect(res.status).to.equal(200);
    const token = ((await res.json()) as { access_token: string }).access_token;
    const created = await app.request('/wallet/users', json('POST', { externalUserRef: `bp-${unique()}` }, bearer(token)));
    expect(created.status).to.equal(201);
    expect(created.headers.get('location')).to.match(/^\/wallet\/users\/usr_/);
    expect((await app.request('/users', { headers: bearer(token) })).status).to.equal(404);
    expect((await app.request('/.well-known/jwks.json')).status).to.equal(200);
  });
});
