import { expect } from 'chai';
import { createLocalJWKSet, decodeProtectedHeader, exportJWK, generateKeyPair, jwtVerify, SignJWT } from 'jose';
import { ScryptPasswordHasher } from '../../src/adapters/crypto/scrypt-password-hasher.js';
import { MemorySigningKeyStore } from '../../src/adapters/memory/signing-key-store.memory.js';
import { SigningKeyRing } from '../../src/adapters/jose/signing-keys.js';
import { JoseTokenIssuer } from '../../src/adapters/jose/token-issuer.jose.js';
import { JoseTokenVerifier } from '../../src/adapters/jose/token-verifier.jose.js';
import type { DomainError } from '../../src/domain/shared/errors.js';

const settings = { issuer: 'https://iss', audience: 'https://aud', machineTokenTtlSeconds: 60, userTokenTtlSeconds: 60 };

describe('jose token adapters', () => {
  const clock = {
    t: Date.now(),
    now() {
      return new Date(this.t);
    },
  };
  let ring: SigningKeyRing;
  let lookups = 0;
  beforeEach(async () => {
    clock.t = Date.now();
    ring = new SigningKeyRing({ kind: 'stored', store: new MemorySigningKeyStore(), ring: 'unit' }, clock, { retentionSeconds: 200 });
    await ring.start();
    lookups = 0;
    const original = ring.verificationKey.bind(ring);
    ring.verificationKey = (kid, alg) => {
      lookups += 1;
      return original(kid, alg);
    };
  });

  it('when the same token is verified again, then the cache answers without a key lookup; past exp it is refused', async () => {
    const issuer = new JoseTokenIssuer(ring, clock, settings);
    const verifier = new JoseTokenVerifier(ring, clock, settings, { cacheEntries: 10 });
    const { accessToken } = await issuer.issue({ kind: 'machine', tenantId: 'tnt_1', clientId: 'cli_1' });
    await verifier.verify(accessToken);
    await verifier.verify(accessToken);
    expect(lookups).to.equal(1);
    clock.t += 75_000; // 60 s lifetime + 10 s tolerance passed
    const err = await verifier.verify(accessToken).catch((e: unknown) => e);
    expect((err as DomainError).reason).to.equal('invalid-token');
  });

  for (const alg of ['ES256', 'EdDSA'] as const) {
    it(`when an ${alg} token is issued, then jose verifies it against the published keys and it reads like SignJWT's`, async () => {
      const { privateKey } = await generateKeyPair(alg, { extractable: true, ...(alg === 'EdDSA' ? { crv: 'Ed25519' } : {}) });
      const jwk = { ...(await exportJWK(privateKey)), kid: `k-${alg}` };
      const configured = new SigningKeyRing({ kind: 'configured', jwks: JSON.stringify(jwk) }, clock, { retentionSeconds: 200 });
      await configured.start();
      const issuer = new JoseTokenIssuer(configured, clock, settings);
      const principal = {
        kind: 'user',
        tenantId: 'tnt_1',
        clientId: 'cli_1',
        userId: 'usr_1',
        amr: ['pwd'],
        act: { sub: 'cli_1' },
      } as const;
      const { accessToken, expiresIn } = await issuer.issue(principal);
      expect(expiresIn).to.equal(60);
      const { payload, protectedHeader } = await jwtVerify(accessToken, createLocalJWKSet(await configured.jwks()), {
        issuer: settings.issuer,
        audience: settings.audience,
        algorithms: [alg],
      });
      expect(protectedHeader).to.deep.equal({ alg, kid: `k-${alg}`, typ: 'wallet-user+jwt' });
      expect(Object.keys(decodeProtectedHeader(accessToken))).to.deep.equal(['alg', 'kid', 'typ']);
      const iat = Math.floor(clock.t / 1000);
      const reference = await new SignJWT({
        sub: 'usr_1',
        tid: 'tnt_1',
        client_id: 'cli_1',
        token_use: 'wallet-user',
        amr: ['pwd'],
        act: { sub: 'cli_1' },
      })
        .setProtectedHeader({ alg, kid: `k-${alg}`, typ: 'wallet-user+jwt' })
        .setIssuer(settings.issuer)
        .setAudience(settings.audience)
        .setIssuedAt(iat)
        .setExpirationTime(iat + 60)
        .setJti(String(payload.jti))
        .sign(privateKey);
      // Same header and payload, byte for byte, as jose's SignJWT (ECDSA signatures differ at each signing).
      expect(accessToken.split('.').slice(0, 2)).to.deep.equal(reference.split('.').slice(0, 2));
      expect(payload.jti).to.match(/^[A-Za-z0-9_-]{22}$/);
      const tampered = `${accessToken.split('.').slice(0, 2).join('.')}.${reference.split('.')[2]!.replace(/^./, (c) => (c === 'A' ? 'B' : 'A'))}`;
      const refused = await jwtVerify(tampered, createLocalJWKSet(await configured.jwks())).catch((e: unknown) => e);
      expect(refused).to.be.instanceOf(Error);
    });
  }

  it('when the cache is full, then the least recently used token is verified afresh', async () => {
    const issuer = new JoseTokenIssuer(ring, clock, settings);
    const verifier = new JoseTokenVerifier(ring, clock, settings, { cacheEntries: 2 });
    const tokens = await Promise.all([1, 2, 3].map((i) => issuer.issue({ kind: 'machine', tenantId: `tnt_${i}`, clientId: `cli_${i}` })));
    for (const t of tokens) await verifier.verify(t.accessToken);
    expect(lookups).to.equal(3);
    await verifier.verify(tokens[2]!.accessToken);
    expect(lookups).to.equal(3);
    await verifier.verify(tokens[0]!.accessToken);
    expect(lookups).to.equal(4);
  });
});

describe('scrypt password hasher', () => {
  const hasher = new ScryptPasswordHasher({ N: 2 ** 12, r: 8, p: 1 });
  it('when a password is hashed, then only that password verifies, and the hash names its cost and salt', async () => {
    const h = await hasher.hash('correct horse');
    expect(h).to.match(/^scrypt\$4096\$8\$1\$[A-Za-z0-9_-]+\$[A-Za-z0-9_-]+$/);
    expect(h).not.to.include('correct');
    expect(await hasher.verify('correct horse', h)).to.equal(true);
    expect(await hasher.verify('correct horsE', h)).to.equal(false);
    expect(await hasher.hash('correct horse')).not.to.equal(h);
  });
  it('when there is no stored hash or it is malformed, then false', async () => {
    expect(await hasher.verify('x', null)).to.equal(false);
    expect(await hasher.verify('x', 'plain')).to.equal(false);
  });
});
