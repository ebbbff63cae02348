import { expect } from 'chai';
import { reasonIn } from '../support/errors.js';
import { decodeJwt, decodeProtectedHeader } from 'jose';
import { json, startTestApp, type TestApp } from '../support/app.js';
import { unique } from '../support/builders.js';
import { DAY_MS, MINUTE_MS, ManualClock } from '../support/clock.js';
import { databaseKind } from '../support/database.js';
import { LOGIN_THROTTLE_WINDOW_SECONDS } from '../../src/domain/identity/login-throttle.js';
import {
  bearer,
  buildPasswordUser,
  buildTenant,
  delegatedToken,
  login,
  machineToken,
  testAddress,
  type TestTenant,
  walletSuite,
} from '../support/wallet-builders.js';

const reason = reasonIn;

describe('wallet user tokens: delegated and password login', () => {
  let app: TestApp;
  let tenant: TestTenant;
  let machine: string;
  // One trusted proxy hop, so each test can log in from its own client address.
  walletSuite({ TRUST_PROXY: '1' }, (suite) => ({ app, tenant, machine } = suite));

  describe('POST /auth/delegated-token', () => {
    const delegate = (token: string, body: unknown) => app.request('/auth/delegated-token', json('POST', body, bearer(token)));

    it('when the tenant’s backend vouches for a new ref, then the user is created and the token says amr tenant_delegated and act', async () => {
      const ref = `shop:${unique()}@x.y-z_1`;
      const res = await delegate(machine, { externalUserRef: ref });
      expect(res.status).to.equal(200);
      expect(res.headers.get('cache-control')).to.equal('no-store');
      const body = (await res.json()) as Record<string, unknown>;
      expect(Object.keys(body).sort()).to.deep.equal(['access_token', 'expires_in', 'issued_token_type', 'token_type']);
      expect(body).to.include({
        token_type: 'Bearer',
        expires_in: 900,
        issued_token_type: 'urn:ietf:params:oauth:token-type:access_token',
      });
      const claims = decodeJwt(body.access_token as string);
      expect(claims).to.deep.include({ tid: tenant.tenantId, amr: ['tenant_delegated'], act: { sub: tenant.clientId } });
      expect(claims.sub).to.match(/^usr_/);
      expect(claims.exp! - claims.iat!).to.equal(900);
      expect(decodeProtectedHeader(body.access_token as string).typ).to.equal('wallet-user+jwt');
      const me = (await (await app.request('/me', { headers: bearer(body.access_token as string) })).json()) as Record<string, unknown>;
      expect(me).to.include({ id: claims.sub, externalUserRef: ref, email: null });
    });

    it('when the same ref is delegated again, then it is the same user', async () => {
      const first = await delegatedToken(app, machine, `same-${unique()}`);
      const second = await delegatedToken(app, machine, first.externalUserRef);
      expect(second.userId).to.equal(first.userId);
    });

    it('when two tenants delegate the same ref, then they get two different users', async () => {
      const other = await buildTenant(app.service);
      const ref = `shared-${unique()}`;
      const a = await delegatedToken(app, machine, ref);
      const b = await delegatedToken(app, await machineToken(app, other), ref);
      expect(a.userId).not.to.equal(b.userId);
    });

    it('when the ref is missing, empty, too long or has other characters, then 400 invalid-request', async () => {
      for (const externalUserRef of [undefined, '', 'a'.repeat(129), 'has space', 'slash/no', 'ünï', 42]) {
        const res = await delegate(machine, { externalUserRef });
        expect(res.status, String(externalUserRef)).to.equal(400);
        expect(await reason(res)).to.equal('invalid-request');
      }
      expect((await delegate(machine, { externalUserRef: 'a'.repeat(128) })).status).to.equal(200);
    });

    it('when a user token is used, then 403 machine-token-required; with no token, 401 invalid-token', async () => {
      const user = await delegatedToken(app, machine);
      const res = await delegate(user.token, { externalUserRef: `x-${unique()}` });
      expect(res.status).to.equal(403);
      expect(await reason(res)).to.equal('machine-token-required');
      const none = await app.request('/auth/delegated-token', json('POST', { externalUserRef: 'abc' }));
      expect(none.status).to.equal(401);
      expect(await reason(none)).to.equal('invalid-token');
    });

    it('when the response is read, then there is no refresh token', async () => {
      const res = await delegate(machine, { externalUserRef: `r-${unique()}` });
      expect(await res.json()).not.to.have.property('refresh_token');
    });
  });

  describe('POST /auth/login', () => {
    it('when email (any case) and password are right, then a user token with amr pwd and no act', async () => {
      const u = await buildPasswordUser(app, machine);
      const res = await login(app, { clientId: tenant.clientId, email: u.email.toUpperCase(), password: u.password }, testAddress());
      expect(res.status).to.equal(200);
      expect(res.headers.get('cache-control')).to.equal('no-store');
      const body = (await res.json()) as Record<string, unknown>;
      expect(Object.keys(body).sort()).to.deep.equal(['access_token', 'expires_in', 'token_type']);
      const claims = decodeJwt(body.access_token as string);
      expect(claims).to.deep.include({ sub: u.userId, tid: tenant.tenantId, amr: ['pwd'] });
      expect(claims).not.to.have.property('act');
    });

    it('when the password is wrong, the email unknown or the client unknown, then 401 invalid-credentials alike', async () => {
      const u = await buildPasswordUser(app, machine);
      const delegatedOnly = await delegatedToken(app, machine);
      const answers = [
        await login(app, { clientId: tenant.clientId, email: u.email, password: `${u.password}x` }, testAddress()),
        await login(app, { clientId: tenant.clientId, email: `nobody-${unique()}@example.com`, password: u.password }, testAddress()),
        await login(app, { clientId: 'cli_unknown', email: u.email, password: u.password }, testAddress()),
        await login(app, { clientId: tenant.clientId, email: delegatedOnly.externalUserRef, password: 'whatever1' }, testAddress()),
      ];
      const bodies: Array<{ reason: unknown; message: unknown }> = [];
      for (const res of answers) {
        expect(res.status).to.equal(401);
        const b = (await res.json()) as Record<string, unknown>;
        bodies.push({ reason: b.reason, message: b.message });
      }
      expect(bodies.every((b) => b.reason === 'invalid-credentials' && b.message === bodies[0]!.message)).to.equal(true);
    });

    it('when the user belongs to another tenant, then that tenant’s client id cannot log them in', async () => {
      const u = await buildPasswordUser(app, machine);
      const other = await buildTenant(app.service);
      const res = await login(app, { clientId: other.clientId, email: u.email, password: u.password }, testAddress());
      expect(res.status).to.equal(401);
    });

    it('when the email is unknown, then the answer takes about as long as a wrong password', async function () {
      this.timeout(30_000);
      const u = await buildPasswordUser(app, machine);
      const time = async (email: string) => {
        const started = process.hrtime.bigint();
        const res = await login(app, { clientId: tenant.clientId, email, password: 'not-the-password' }, testAddress());
        expect(res.status).to.equal(401);
        return Number(process.hrtime.bigint() - started) / 1e6;
      };
      const median = (xs: number[]) => xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
      const known: number[] = [];
      const unknown: number[] = [];
      for (let i = 0; i < 4; i++) {
        known.push(await time(u.email));
        unknown.push(await time(`ghost-${unique()}@example.com`));
      }
      const ratio = median(unknown) / median(known);
      expect(ratio, `unknown ${median(unknown)} ms vs known ${median(known)} ms`).to.be.within(0.6, 1.6);
      // And both include the password hashing work (scrypt), not a fast path.
      expect(median(unknown)).to.be.greaterThan(10);
    });

    it('when an account fails 5 times, then the 6th attempt is 429 too-many-attempts with Retry-After, even with the right password', async () => {
      const u = await buildPasswordUser(app, machine);
      for (let i = 0; i < 5; i++) {
        const res = await login(app, { clientId: tenant.clientId, email: u.email, password: `wrong-${i}` }, testAddress());
        expect(res.status, `attempt ${i + 1}`).to.equal(401);
      }
      const locked = await login(app, { clientId: tenant.clientId, email: u.email, password: u.password }, testAddress());
      expect(locked.status).to.equal(429);
      expect(Number(locked.headers.get('retry-after'))).to.be.within(1, 900);
      expect(await reason(locked)).to.equal('too-many-attempts');
      // Another account at the same time is not affected.
      const other = await buildPasswordUser(app, machine);
      expect(
        (await login(app, { clientId: tenant.clientId, email: other.email, password: other.password }, testAddress())).status,
      ).to.equal(200);
    });

    it('when an unknown email fails 5 times, then it is throttled just like a real account (no existence leak)', async () => {
      const email = `ghost-${unique()}@example.com`;
      const statuses = [];
      for (let i = 0; i < 6; i++)
        statuses.push((await login(app, { clientId: tenant.clientId, email, password: 'nope-nope' }, testAddress())).status);
      expect(statuses).to.deep.equal([401, 401, 401, 401, 401, 429]);
    });

    it('when a success follows failures, then the account’s count starts over', async () => {
      const u = await buildPasswordUser(app, machine);
      const address = testAddress();
      for (let round = 0; round < 2; round++) {
        for (let i = 0; i < 4; i++) await login(app, { clientId: tenant.clientId, email: u.email, password: 'wrong-pass' }, address);
        expect((await login(app, { clientId: tenant.clientId, email: u.email, password: u.password }, address)).status).to.equal(200);
      }
    });

    it('when one address fails against 20 accounts, then its next attempt is 429 whatever the account', async function () {
      this.timeout(30_000);
      const address = testAddress();
      for (let i = 0; i < 20; i++) {
        const res = await login(
          app,
          { clientId: tenant.clientId, email: `spray-${unique()}@example.com`, password: 'Summer2024!' },
          address,
        );
        expect(res.status, `attempt ${i + 1}`).to.equal(401);
      }
      const u = await buildPasswordUser(app, machine);
      const res = await login(app, { clientId: tenant.clientId, email: u.email, password: u.password }, address);
      expect(res.status).to.equal(429);
      expect(res.headers.get('retry-after')).to.match(/^\d+$/);
      // The same person from another address is fine.
      expect((await login(app, { clientId: tenant.clientId, email: u.email, password: u.password }, testAddress())).status).to.equal(200);
    });

    it('when one IPv6 address is locked out, then the other addresses of its /56 are locked out too, and another /56 is not', async function () {
      this.timeout(30_000);
      // 2001:db8:XXXX:YY01::1 and 2001:db8:XXXX:YYff::2 share their first 56 bits.
      const network = testAddress().split(':').slice(0, 4).join(':').slice(0, -2);
      const first = `${network}01::1`;
      const sibling = `${network}ff::2`;
      for (let i = 0; i < 20; i++) {
        const res = await login(app, { clientId: tenant.clientId, email: `spray-${unique()}@example.com`, password: 'Summer2024!' }, first);
        expect(res.status, `attempt ${i + 1}`).to.equal(401);
      }
      const u = await buildPasswordUser(app, machine);
      const res = await login(app, { clientId: tenant.clientId, email: u.email, password: u.password }, sibling);
      expect(res.status).to.equal(429);
      expect(await reason(res)).to.equal('too-many-attempts');
      expect((await login(app, { clientId: tenant.clientId, email: u.email, password: u.password }, testAddress())).status).to.equal(200);
    });

    it('when many wrong guesses arrive at once, then no more than the limit are checked (counted in the database)', async function () {
      // PGlite has one connection and cannot run the attempts concurrently.
      if ((await databaseKind()) !== 'postgres') this.skip();
      this.timeout(30_000);
      const u = await buildPasswordUser(app, machine);
      const guesses = await Promise.all(
        Array.from({ length: 12 }, (_, i) =>
          login(app, { clientId: tenant.clientId, email: u.email, password: `guess-${i}` }, testAddress()),
        ),
      );
      const statuses = guesses.map((r) => r.status);
      expect(statuses.filter((s) => s === 401)).to.have.length(5);
      expect(statuses.filter((s) => s === 429)).to.have.length(7);
    });

    it('when a second instance on the same database sees the lockout, then it refuses too (shared counter)', async () => {
      const u = await buildPasswordUser(app, machine);
      for (let i = 0; i < 5; i++) await login(app, { clientId: tenant.clientId, email: u.email, password: 'wrong-pass' }, testAddress());
      const second = await startTestApp({ env: { TRUST_PROXY: '1' } });
      try {
        const res = await login(second, { clientId: tenant.clientId, email: u.email, password: u.password }, testAddress());
        expect(res.status).to.equal(429);
      } finally {
        await second.stop();
      }
    });

    it('when RATE_LIMITS=off, then the login lockout still applies', async () => {
      // startTestApp runs with RATE_LIMITS=off already; stated here so the rule has its own test.
      const u = await buildPasswordUser(app, machine);
      for (let i = 0; i < 5; i++) await login(app, { clientId: tenant.clientId, email: u.email, password: 'wrong-pass' }, testAddress());
      expect((await login(app, { clientId: tenant.clientId, email: u.email, password: u.password }, testAddress())).status).to.equal(429);
    });

    it('when the body is incomplete, then 400 invalid-request', async () => {
      const res = await login(app, { clientId: tenant.clientId, email: 'a@b.co' }, testAddress());
      expect(res.status).to.equal(400);
      expect(await reason(res)).to.equal('invalid-request');
    });
  });

  describe('login and delegated tokens give the same access to /me', () => {
    it('when the same person gets a token both ways, then /me answers the same person identically', async () => {
      const u = await buildPasswordUser(app, machine);
      const me = (await (await app.request(`/users/${u.userId}`, { headers: bearer(machine) })).json()) as { externalUserRef: string };
      const delegated = await delegatedToken(app, machine, me.externalUserRef);
      expect(delegated.userId).to.equal(u.userId);
      const loginRes = await login(app, { clientId: tenant.clientId, email: u.email, password: u.password }, testAddress());
      const pwdToken = ((await loginRes.json()) as { access_token: string }).access_token;
      const a = await app.request('/me', { headers: bearer(pwdToken) });
      const b = await app.request('/me', { headers: bearer(delegated.token) });
      expect(a.status).to.equal(200);
      expect(b.status).to.equal(200);
      expect(await a.json()).to.deep.equal(await b.json());
      // Neither can reach a machine operation.
      for (const token of [pwdToken, delegated.token]) {
        expect((await app.request('/users', { headers: bearer(token) })).status).to.equal(403);
      }
    });
  });
});

for (const mode of ['database', 'memory'] as const) {
  describe(`login attempt keys and their purge (${mode})`, () => {
    const clock = new ManualClock();
    let app: TestApp;
    let tenant: TestTenant;
    before(async () => {
      app = await startTestApp({ clock, memory: mode === 'memory', env: { TRUST_PROXY: '1' } });
      tenant = await buildTenant(app.service);
    });
    after(async () => {
      clock.reset();
      await app?.stop();
    });

    it('when logins with made-up emails leave attempt keys, then the periodic purge deletes them once their window is over, and keeps running locks', async () => {
      // A day back: purging at this clock's time removes nothing of tests running now on a shared database.
      const start = Date.now() - DAY_MS;
      clock.set(new Date(start));
      const emails = Array.from({ length: 5 }, () => `made-up-${unique()}@example.com`);
      for (const email of emails)
        expect((await login(app, { clientId: tenant.clientId, email, password: 'nope-nope' }, testAddress())).status).to.equal(401);
      // Ten minutes later another made-up email is locked: its window and lock run past the purge below.
      clock.advance(10 * MINUTE_MS);
      const locked = `locked-${unique()}@example.com`;
      const tries = [];
      for (let i = 0; i < 6; i++)
        tries.push((await login(app, { clientId: tenant.clientId, email: locked, password: 'nope-nope' }, testAddress())).status);
      expect(tries).to.deep.equal([401, 401, 401, 401, 401, 429]);
      // Sixteen minutes after the first logins: their 15-minute window is over.
      clock.advance(6 * MINUTE_MS);
      const purged = await app.service.ports.loginThrottle.purgeExpired(clock.now(), LOGIN_THROTTLE_WINDOW_SECONDS);
      // Each of the five logins left an account key and an address key.
      if (mode === 'memory') expect(purged).to.equal(10);
      else {
        expect(purged).to.be.at.least(10);
        // The purge is a storage concern: the rows themselves show what it kept.
        const knex = app.service.db!.knex;
        const count = async (ks: string[]) =>
          Number(((await knex('login_throttle').whereIn('key', ks).count('* as n')) as Array<{ n: number }>)[0]!.n);
        expect(await count(emails.map((e) => `account:${tenant.clientId}:${e.toLowerCase()}`))).to.equal(0);
        expect(await count([`account:${tenant.clientId}:${locked.toLowerCase()}`])).to.equal(1);
      }
      expect((await login(app, { clientId: tenant.clientId, email: locked, password: 'nope-nope' }, testAddress())).status).to.equal(429);
      // A made-up email whose keys were purged starts a new count.
      expect((await login(app, { clientId: tenant.clientId, email: emails[0]!, password: 'nope-nope' }, testAddress())).status).to.equal(
        401,
      );
    });
  });
}
