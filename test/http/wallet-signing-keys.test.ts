import { expect } from 'chai';
import { createLocalJWKSet, decodeProtectedHeader, jwtVerify } from 'jose';
import { startTestApp, twoInstances, type TestApp } from '../support/app.js';
import { ManualClock } from '../support/clock.js';
import { bearer, buildTenant, delegatedToken, machineToken, testSigningKey } from '../support/wallet-builders.js';
import { TOKENS } from '../../src/bootstrap/tokens.js';
import { WALLET_KEY_RING } from '../../src/bootstrap/ports.js';

const jwks = async (app: TestApp) => {
  const res = await app.request('/.well-known/jwks.json');
  expect(res.status).to.equal(200);
  return (await res.json()) as { keys: Array<Record<string, unknown>> };
};

describe('token signing keys and GET /.well-known/jwks.json', () => {
  // Two instances on the same database: they must sign and verify alike.
  const apps = twoInstances();

  it('when no key is configured, then one ES256 key is generated, kept in the database and published without its private part', async () => {
    const set = await jwks(apps.a);
    expect(set.keys.length).to.be.greaterThan(0);
    for (const k of set.keys) {
      expect(k).to.include({ kty: 'EC', crv: 'P-256', alg: 'ES256', use: 'sig' });
      expect(k).not.to.have.property('d');
    }
    const knex = apps.a.service.db!.knex;
    const active = await knex('token_signing_keys').where({ ring: WALLET_KEY_RING, status: 'ACTIVE' });
    expect(active).to.have.length(1);
    expect(set.keys.map((k) => k.kid)).to.include(active[0].kid);
  });

  it('when a token is issued by one instance, then the other verifies it, and the JWKS verifies it for anyone', async () => {
    const t = await buildTenant(apps.a.service);
    const token = await machineToken(apps.a, t);
    expect((await apps.b.request('/users', { headers: bearer(token) })).status).to.equal(200);
    const { payload } = await jwtVerify(token, createLocalJWKSet((await jwks(apps.b)) as never), {
      issuer: 'https://pbw.local',
      audience: 'https://pbw.local/wallet',
    });
    expect(payload.tid).to.equal(t.tenantId);
  });

  it('when the key is rotated, then new tokens use the new kid, old tokens still work, and both keys are published', async () => {
    const t = await buildTenant(apps.a.service);
    const machine = await machineToken(apps.a, t);
    const oldUser = await delegatedToken(apps.a, machine);
    const oldKid = decodeProtectedHeader(machine).kid;
    const rotated = await apps.a.service.core.admin.rotateSigningKey.execute();
    expect(rotated.previousKid).to.equal(oldKid);
    const fresh = await machineToken(apps.a, t);
    expect(decodeProtectedHeader(fresh).kid).to.equal(rotated.kid);
    // The other instance learns of the new key on the first token that names it.
    expect((await apps.b.request('/users', { headers: bearer(fresh) })).status).to.equal(200);
    expect((await apps.b.request('/me', { headers: bearer(oldUser.token) })).status).to.equal(200);
    expect((await apps.a.request('/users', { headers: bearer(machine) })).status).to.equal(200);
    const kids = (await jwks(apps.a)).keys.map((k) => k.kid);
    expect(kids).to.include.members([oldKid, rotated.kid]);
  });

  it('when a key is configured (TOKEN_SIGNING_KEY), then it signs, and a JWK Set keeps an old public key published', async () => {
    const current = await testSigningKey();
    const previous = await testSigningKey();
    const c = await startTestApp({ env: { TOKEN_SIGNING_KEY: JSON.stringify({ keys: [current.privateJwk, previous.publicJwk] }) } });
    try {
      const t = await buildTenant(c.service);
      const token = await machineToken(c, t);
      expect(decodeProtectedHeader(token).kid).to.equal(current.kid);
      expect((await jwks(c)).keys.map((k) => k.kid)).to.have.members([current.kid, previous.kid]);
      const refused = await c.service.core.admin.rotateSigningKey.execute().then(
        () => 'rotated',
        (e: { reason?: string }) => e.reason,
      );
      expect(refused).to.equal('invalid-request');
    } finally {
      await c.stop();
    }
  });
});

for (const mode of ['database', 'memory'] as const) {
  describe(`a retired token signing key (${mode})`, () => {
    const clock = new ManualClock();
    let app: TestApp;
    before(async () => {
      app = await startTestApp({ clock, memory: mode === 'memory' });
    });
    after(async () => {
      clock.reset();
      await app?.stop();
    });

    it('when a retired key is older than the longest token lifetime, then it is no longer published and its tokens fail', async () => {
      const config = app.service.container.get(TOKENS.Config);
      const lifetimeMs = Math.max(config.machineTokenTtlSeconds, config.userTokenTtlSeconds) * 1000;
      const t = await buildTenant(app.service);
      const oldToken = await machineToken(app, t);
      const oldKid = decodeProtectedHeader(oldToken).kid as string;
      const rotated = await app.service.core.admin.rotateSigningKey.execute();
      expect(rotated.previousKid).to.equal(oldKid);
      // Within the token's lifetime the retired key still verifies and stays published.
      await clock.shifted(config.machineTokenTtlSeconds * 500, async () => {
        expect((await jwks(app)).keys.map((k) => k.kid)).to.include.members([oldKid, rotated.kid]);
        expect((await app.request('/users', { headers: bearer(oldToken) })).status).to.equal(200);
      });
      // Once every token it signed has expired, it is dropped.
      await clock.shifted(lifetimeMs + 3 * 60_000, async () => {
        // Only the signing key is left (on a shared database, another test may have rotated the ring since).
        const published = (await jwks(app)).keys.map((k) => k.kid);
        expect(published).not.to.include(oldKid);
        expect(published).to.have.length(1);
        expect((await app.request('/users', { headers: bearer(oldToken) })).status).to.equal(401);
        expect((await app.request('/users', { headers: bearer(await machineToken(app, t)) })).status).to.equal(200);
      });
    });
  });
}
