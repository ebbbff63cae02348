import { expect } from 'chai';
import { createPublicKey } from 'node:crypto';
import {
  SignJWT,
  base64url,
  decodeJwt,
  decodeProtectedHeader,
  exportJWK,
  generateKeyPair,
  importJWK,
  type CryptoKey,
  type JWK,
} from 'jose';
import { startTestApp, type TestApp } from '../support/app.js';
import { bearer, buildTenant, delegatedToken, machineToken, testSigningKey, type TestTenant } from '../support/wallet-builders.js';
import { eventually } from '../support/builders.js';
import { ManualClock } from '../support/clock.js';

/**
 * Each forged or spoiled token must be refused with 401 invalid-token and the Bearer challenge.
 * The app signs with a configured key the test also holds, so the test can sign tokens that are
 * genuine in every respect but one.
 */
for (const mode of ['database', 'memory'] as const) {
  describe(`wallet token verification (attacks) (${mode})`, () => {
    let app: TestApp;
    const clock = new ManualClock();
    let tenant: TestTenant;
    let machine: string;
    let user: { token: string; userId: string };
    let key: Awaited<ReturnType<typeof testSigningKey>>;

    before(async () => {
      key = await testSigningKey();
      app = await startTestApp({ clock, memory: mode === 'memory', env: { TOKEN_SIGNING_KEY: JSON.stringify(key.privateJwk) } });
      tenant = await buildTenant(app.service);
      machine = await machineToken(app, tenant);
      user = await delegatedToken(app, machine);
    });
    after(() => app.stop());

    const now = () => Math.floor(Date.now() / 1000);
    const genuineUserClaims = () => ({
      sub: user.userId,
      tid: tenant.tenantId,
      client_id: tenant.clientId,
      token_use: 'wallet-user',
      amr: ['pwd'],
      iss: 'https://pbw.local',
      aud: 'https://pbw.local/wallet',
      iat: now(),
      exp: now() + 600,
      jti: `j-${Math.random()}`,
    });
    const sign = async (claims: Record<string, unknown>, header: Record<string, unknown> = {}, signingKey?: CryptoKey | Uint8Array) =>
      new SignJWT(claims)
        .setProtectedHeader({ alg: 'ES256', kid: key.kid, typ: 'wallet-user+jwt', ...header } as never)
        .sign(signingKey ?? ((await importJWK(key.privateJwk, 'ES256')) as CryptoKey));

    const expectRefused = async (token: string, what: string) => {
      const res = await app.request('/me', { headers: bearer(token) });
      expect(res.status, what).to.equal(401);
      expect(res.headers.get('www-authenticate'), what).to.equal('Bearer error="invalid_token"');
      expect(((await res.json()) as { reason: string }).reason, what).to.equal('invalid-token');
    };

    it('when a token is signed with the configured key and every claim is right, then it is accepted (the control case)', async () => {
      const res = await app.request('/me', { headers: bearer(await sign(genuineUserClaims())) });
      expect(res.status).to.equal(200);
      expect(((await res.json()) as { id: string }).id).to.equal(user.userId);
    });

    it('when the token is unsigned (alg: none), then 401 invalid-token', async () => {
      const head = base64url.encode(JSON.stringify({ alg: 'none', typ: 'wallet-user+jwt', kid: key.kid }));
      const body = base64url.encode(JSON.stringify(genuineUserClaims()));
      await expectRefused(`${head}.${body}.`, 'alg none');
      await expectRefused(`${head}.${body}`, 'alg none without the trailing dot');
    });

    it('when the token is HMAC-signed with the public key as the secret, then 401 invalid-token', async () => {
      const jwks = (await (await app.request('/.well-known/jwks.json')).json()) as { keys: JWK[] };
      const published = jwks.keys.find((k) => k.kid === key.kid)!;
      const pem = createPublicKey({ key: published as never, format: 'jwk' }).export({ type: 'spki', format: 'pem' }) as string;
      for (const secret of [new TextEncoder().encode(pem), new TextEncoder().encode(JSON.stringify(published))]) {
        const token = await new SignJWT(genuineUserClaims())
          .setProtectedHeader({ alg: 'HS256', kid: key.kid, typ: 'wallet-user+jwt' })
          .sign(secret);
        await expectRefused(token, 'HS256 with the public key');
      }
    });

    it('when the token is signed by a foreign key that names our kid, then 401 invalid-token', async () => {
      const foreign = await generateKeyPair('ES256');
      await expectRefused(await sign(genuineUserClaims(), {}, foreign.privateKey), 'foreign key, our kid');
    });

    it('when the token embeds its own jwk (or points to a jku), then 401 invalid-token', async () => {
      const foreign = await generateKeyPair('ES256', { extractable: true });
      const jwk = await exportJWK(foreign.publicKey);
      await expectRefused(await sign(genuineUserClaims(), { jwk }, foreign.privateKey), 'embedded jwk, foreign key');
      await expectRefused(await sign(genuineUserClaims(), { jwk: key.publicJwk }), 'embedded jwk, even our own key');
      await expectRefused(await sign(genuineUserClaims(), { jku: 'https://attacker.example/jwks.json' }), 'jku');
    });

    it('when the payload of a genuine token is tampered with, then 401 invalid-token', async () => {
      const other = await delegatedToken(app, machine);
      const [h, , s] = user.token.split('.');
      const claims = { ...decodeJwt(user.token), sub: other.userId };
      await expectRefused(`${h}.${base64url.encode(JSON.stringify(claims))}.${s}`, 'tampered sub');
      const [mh, , ms] = machine.split('.');
      const other2 = await buildTenant(app.service);
      const widened = { ...decodeJwt(machine), tid: other2.tenantId };
      const res = await app.request('/users', { headers: bearer(`${mh}.${base64url.encode(JSON.stringify(widened))}.${ms}`) });
      expect(res.status).to.equal(401);
    });

    it('when the token has expired (beyond the small clock tolerance), then 401 invalid-token', async () => {
      await expectRefused(await sign({ ...genuineUserClaims(), iat: now() - 1000, exp: now() - 60 }), 'expired a minute ago');
    });

    it('when exp − iat is longer than its kind’s lifetime (user 900 s, machine 3600 s), then 401 invalid-token, though neither is past', async () => {
      // Exactly the lifetime is what the service itself issues.
      const atLifetime = await sign({ ...genuineUserClaims(), iat: now(), exp: now() + 900 });
      expect((await app.request('/me', { headers: bearer(atLifetime) })).status).to.equal(200);
      await expectRefused(await sign({ ...genuineUserClaims(), iat: now(), exp: now() + 901 }), 'user token for 901 s');
      await expectRefused(
        await sign({ ...genuineUserClaims(), iat: now() - 60, exp: now() + 870 }),
        'user token issued a minute ago for 930 s',
      );
      await expectRefused(await sign({ ...genuineUserClaims(), iat: now(), exp: now() + 365 * 86_400 }), 'user token for a year');
      // A delegated user token lives as long as any user token, not as long as the machine token that asked for it.
      const delegated = { ...decodeJwt(user.token), jti: `j-${Math.random()}`, iat: now(), exp: now() + 3600 };
      await expectRefused(await sign(delegated), 'delegated user token for an hour');
      const machineClaims = { ...decodeJwt(machine), jti: `j-${Math.random()}`, iat: now() };
      const machineFor = async (seconds: number) =>
        app.request('/users', {
          headers: bearer(await sign({ ...machineClaims, exp: now() + seconds }, { typ: decodeProtectedHeader(machine).typ })),
        });
      expect((await machineFor(3600)).status).to.equal(200);
      for (const seconds of [3601, 86_400]) {
        const res = await machineFor(seconds);
        expect(res.status, `machine token for ${seconds} s`).to.equal(401);
        expect(((await res.json()) as { reason: string }).reason).to.equal('invalid-token');
      }
    });

    it('when the token is for another audience or from another issuer, then 401 invalid-token', async () => {
      await expectRefused(await sign({ ...genuineUserClaims(), aud: 'https://other.example/api' }), 'other audience');
      await expectRefused(await sign({ ...genuineUserClaims(), iss: 'https://evil.example' }), 'other issuer');
    });

    it('when the typ does not match the claims (a user token typed as a machine token, or the reverse), then 401', async () => {
      await expectRefused(await sign(genuineUserClaims(), { typ: 'at+jwt' }), 'user claims, machine typ');
      await expectRefused(await sign(genuineUserClaims(), { typ: 'JWT' }), 'plain JWT typ');
      const machineClaims = { ...decodeJwt(machine), jti: 'x', iat: now(), exp: now() + 60 };
      const forged = await sign(machineClaims, { typ: 'wallet-user+jwt' });
      expect((await app.request('/users', { headers: bearer(forged) })).status).to.equal(401);
    });

    it('when the header is not a Bearer token, or the token is garbage, then 401 invalid-token with the challenge', async () => {
      for (const authorization of [
        undefined,
        '',
        'Bearer',
        `Basic ${user.token}`,
        'Bearer abc',
        `Bearer ${user.token} extra`,
        `Bearer ${'a'.repeat(9000)}`,
      ]) {
        const res = await app.request('/me', { headers: authorization === undefined ? {} : { authorization } });
        expect(res.status, String(authorization)).to.equal(401);
        expect(res.headers.get('www-authenticate')).to.equal('Bearer error="invalid_token"');
        expect(((await res.json()) as { reason: string }).reason).to.equal('invalid-token');
      }
    });

    it('when a cached token expires, then it is refused on its next use (exp is checked on every use)', async () => {
      // Expired 8 s ago: still inside the 10 s tolerance for two more seconds.
      const token = await sign({ ...genuineUserClaims(), iat: now() - 100, exp: now() - 8 });
      expect((await app.request('/me', { headers: bearer(token) })).status).to.equal(200);
      await clock.shifted(3_000, () => expectRefused(token, 'cached, now expired'));
    });

    it('when the token’s user or tenant is deleted by SQL, then its token is refused within a second', async function () {
      // The service deletes neither: an operator's SQL does, and the database's change feed must
      // still reach the instance's identity cache. In memory there is no SQL to run.
      if (mode === 'memory') this.skip();
      const t = await buildTenant(app.service);
      const m = await machineToken(app, t);
      const u = await delegatedToken(app, m);
      // Both are now in the instance's identity cache: the database's change feed must clear them.
      expect((await app.request('/me', { headers: bearer(u.token) })).status).to.equal(200);
      expect((await app.request('/users', { headers: bearer(m) })).status).to.equal(200);
      const knex = app.service.db!.knex;
      await knex('wallet_users').where({ id: u.userId }).delete();
      await eventually(async () => (await app.request('/me', { headers: bearer(u.token) })).status === 401, 1000, 'deleted user refused');
      await expectRefused(u.token, 'deleted user');
      await knex('tenants').where({ id: t.tenantId }).delete();
      await eventually(async () => (await app.request('/users', { headers: bearer(m) })).status === 401, 1000, 'deleted tenant refused');
      const res = await app.request('/users', { headers: bearer(m) });
      expect(res.status).to.equal(401);
      expect(((await res.json()) as { reason: string }).reason).to.equal('invalid-token');
    });
  });
}
