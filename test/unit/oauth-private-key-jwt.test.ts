import { expect } from 'chai';
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey } from 'jose';
import { createMemoryPorts, type PortSet } from '../../src/bootstrap/ports.js';
import { identityUseCases } from '../../src/bootstrap/core.js';
import { JWT_BEARER_ASSERTION_TYPE } from '../../src/domain/identity/tenant-jwt.js';
import type { Tenant } from '../../src/domain/identity/tenant.js';
import { reasonOf, unique } from 'partner-booking-wallet/testing';
import { ManualClock } from '../support/clock.js';

const ISSUER = 'https://wallet.example';
const TOKEN_ENDPOINT = 'https://wallet.example/w/oauth/token';

/** A tenant's signing key: its private half (kept by the tenant) and its registered public JWK. */
interface TenantKey {
  readonly alg: 'ES256' | 'RS256' | 'EdDSA';
  readonly kid: string;
  readonly privateKey: CryptoKey;
  readonly publicJwk: Record<string, string>;
}
const tenantKey = async (alg: TenantKey['alg']): Promise<TenantKey> => {
  const pair = await generateKeyPair(alg, { extractable: true });
  const kid = `k-${unique()}`;
  return { alg, kid, privateKey: pair.privateKey, publicJwk: { ...((await exportJWK(pair.publicKey)) as Record<string, string>), kid } };
};

describe('private_key_jwt client authentication (RFC 7523)', () => {
  const clock = new ManualClock();
  let ports: PortSet;
  let uc: ReturnType<typeof identityUseCases>;
  let es: TenantKey;
  let rs: TenantKey;
  let ed: TenantKey;
  let stranger: TenantKey;
  let tenant: Tenant;
  const nowS = (): number => Math.floor(clock.now().getTime() / 1000);

  before(async () => {
    [es, rs, ed, stranger] = await Promise.all([tenantKey('ES256'), tenantKey('RS256'), tenantKey('EdDSA'), tenantKey('ES256')]);
  });
  beforeEach(async () => {
    clock.reset();
    ports = createMemoryPorts({ clock });
    await ports.start();
    uc = identityUseCases(ports, { oauth: { issuer: ISSUER, tokenEndpoint: TOKEN_ENDPOINT } });
    tenant = await newTenant('private_key_jwt');
  });
  afterEach(() => ports.stop());

  const newTenant = async (authMethod: 'private_key_jwt' | 'client_secret'): Promise<Tenant> => {
    const t: Tenant = {
      id: `tnt_${unique()}`,
      name: 'Keys',
      clientId: `cli_${unique()}`,
      clientSecretHash: ports.secretHasher.hash('the-secret'),
      currency: 'THB',
      createdAt: clock.now(),
    };
    await ports.tenants.createTenant(t);
    return (await ports.tenants.updateClientSettings(t.id, {
      jwks: { keys: [es.publicJwk, rs.publicJwk, ed.publicJwk] },
      authMethod,
    }))!;
  };

  const assertion = (key: TenantKey, claims: Record<string, unknown> = {}, header: Record<string, unknown> = {}): Promise<string> =>
    new SignJWT({ iss: tenant.clientId, sub: tenant.clientId, aud: ISSUER, exp: nowS() + 120, iat: nowS(), jti: unique(), ...claims })
      .setProtectedHeader({ alg: key.alg, kid: key.kid, ...header })
      .sign(key.privateKey);
  const present = (clientAssertion: string, clientId?: string) =>
    uc.authenticateClient.execute({
      clientAssertionType: JWT_BEARER_ASSERTION_TYPE,
      clientAssertion,
      ...(clientId === undefined ? {} : { clientId }),
    });

  it('when an assertion is signed by any registered key (ES256, RS256, EdDSA) with aud the issuer or the token endpoint, then the tenant is authenticated', async () => {
    for (const key of [es, rs, ed]) expect((await present(await assertion(key))).id).to.equal(tenant.id);
    expect((await present(await assertion(es, { aud: TOKEN_ENDPOINT }))).id).to.equal(tenant.id);
    expect((await present(await assertion(es, { aud: [ISSUER, TOKEN_ENDPOINT] }))).id).to.equal(tenant.id);
    // An array that names anyone else too was made for them as well.
    expect(await reasonOf(present(await assertion(es, { aud: ['https://elsewhere', TOKEN_ENDPOINT] })))).to.equal('invalid-client');
    expect((await present(await assertion(es), tenant.clientId)).id).to.equal(tenant.id);
    // Without a kid the key is chosen among those of the algorithm.
    const noKid = await new SignJWT({ iss: tenant.clientId, sub: tenant.clientId, aud: ISSUER, exp: nowS() + 60, jti: unique() })
      .setProtectedHeader({ alg: 'EdDSA' })
      .sign(ed.privateKey);
    expect((await present(noKid)).id).to.equal(tenant.id);
  });

  it('when exp is exactly 5 minutes ahead and iat a little in the future (clock skew), then the assertion is still accepted', async () => {
    expect((await present(await assertion(es, { exp: nowS() + 300, iat: nowS() + 5 }))).id).to.equal(tenant.id);
  });

  it('when the same assertion is presented twice, then the replay is invalid-client', async () => {
    const jwt = await assertion(es);
    expect((await present(jwt)).id).to.equal(tenant.id);
    expect(await reasonOf(present(jwt))).to.equal('invalid-client');
    // Even re-signed with the same jti.
    const jti = unique();
    await present(await assertion(es, { jti }));
    expect(await reasonOf(present(await assertion(rs, { jti })))).to.equal('invalid-client');
  });

  // Claims are made when each case runs, on its clock.
  const refusedClaims: Array<[string, () => Record<string, unknown>]> = [
    ['iss is another client', () => ({ iss: 'cli_other' })],
    ['sub is not the client', () => ({ sub: 'someone' })],
    ['aud is another server', () => ({ aud: 'https://elsewhere' })],
    ['aud is missing', () => ({ aud: undefined })],
    ['aud is the revocation endpoint', () => ({ aud: 'https://wallet.example/w/oauth/revoke' })],
    ['exp is missing', () => ({ exp: undefined })],
    ['exp is more than 5 minutes ahead', () => ({ exp: nowS() + 330 })],
    ['exp has passed', () => ({ exp: nowS() - 30 })],
    ['iat is in the future', () => ({ iat: nowS() + 120 })],
    ['jti is missing', () => ({ jti: undefined })],
    ['jti is too long', () => ({ jti: 'j'.repeat(257) })],
  ];
  for (const [what, claims] of refusedClaims) {
    it(`when ${what}, then invalid-client`, async () => {
      expect(await reasonOf(present(await assertion(es, claims())))).to.equal('invalid-client');
    });
  }

  it('when the assertion is signed by an unregistered key, carries its own key, or uses HMAC or none, then invalid-client', async () => {
    expect(await reasonOf(present(await assertion(stranger)))).to.equal('invalid-client');
    expect(await reasonOf(present(await assertion(stranger, {}, { kid: es.kid })))).to.equal('invalid-client');
    expect(await reasonOf(present(await assertion(stranger, {}, { kid: undefined, jwk: stranger.publicJwk })))).to.equal('invalid-client');
    const hmac = await new SignJWT({ iss: tenant.clientId, sub: tenant.clientId, aud: ISSUER, exp: nowS() + 60, jti: unique() })
      .setProtectedHeader({ alg: 'HS256' })
      .sign(new TextEncoder().encode(JSON.stringify(es.publicJwk)));
    expect(await reasonOf(present(hmac))).to.equal('invalid-client');
    const none = `${Buffer.from('{"alg":"none"}').toString('base64url')}.${Buffer.from(
      JSON.stringify({ iss: tenant.clientId, sub: tenant.clientId, aud: ISSUER, exp: nowS() + 60, jti: unique() }),
    ).toString('base64url')}.`;
    expect(await reasonOf(present(none))).to.equal('invalid-client');
    expect(await reasonOf(present('not.a.jwt'))).to.equal('invalid-client');
    // A signature that does not verify.
    const jwt = await assertion(es);
    expect(await reasonOf(present(`${jwt.slice(0, -4)}AAAA`))).to.equal('invalid-client');
  });

  it('when the client_id sent does not match, or the tenant is set up for client_secret or has no keys, then invalid-client', async () => {
    expect(await reasonOf(present(await assertion(es), 'cli_other'))).to.equal('invalid-client');
    const secretTenant = await newTenant('client_secret');
    const jwt = await new SignJWT({ iss: secretTenant.clientId, sub: secretTenant.clientId, aud: ISSUER, exp: nowS() + 60, jti: unique() })
      .setProtectedHeader({ alg: 'ES256', kid: es.kid })
      .sign(es.privateKey);
    expect(await reasonOf(present(jwt))).to.equal('invalid-client');
    await ports.tenants.updateClientSettings(tenant.id, { jwks: null });
    expect(await reasonOf(present(await assertion(es)))).to.equal('invalid-client');
  });

  it('when a private_key_jwt tenant presents its client secret, then invalid-client; set back to client_secret, the secret works again', async () => {
    expect(await reasonOf(uc.authenticateClient.execute({ clientId: tenant.clientId, clientSecret: 'the-secret' }))).to.equal(
      'invalid-client',
    );
    await ports.tenants.updateClientSettings(tenant.id, { authMethod: 'client_secret' });
    expect((await uc.authenticateClient.execute({ clientId: tenant.clientId, clientSecret: 'the-secret' })).id).to.equal(tenant.id);
    expect(await reasonOf(present(await assertion(es)))).to.equal('invalid-client');
  });

  it('when the assertion type is another, then invalid-request', async () => {
    const p = uc.authenticateClient.execute({
      clientAssertionType: 'urn:ietf:params:oauth:client-assertion-type:saml2-bearer',
      clientAssertion: await assertion(es),
    });
    expect(await reasonOf(p)).to.equal('invalid-request');
  });

  it('when the service knows no issuer (an embedding without OAuth settings), then every assertion is invalid-client', async () => {
    const bare = identityUseCases(ports);
    expect(
      await reasonOf(
        bare.authenticateClient.execute({ clientAssertionType: JWT_BEARER_ASSERTION_TYPE, clientAssertion: await assertion(es) }),
      ),
    ).to.equal('invalid-client');
  });

  it('when a machine token is requested with an assertion, then it is issued to the tenant', async () => {
    const issued = await uc.issueMachineToken.execute({
      clientAssertionType: JWT_BEARER_ASSERTION_TYPE,
      clientAssertion: await assertion(es),
    });
    expect(await ports.tokenVerifier.verify(issued.accessToken)).to.deep.equal({
      kind: 'machine',
      tenantId: tenant.id,
      clientId: tenant.clientId,
    });
    expect(issued.tokenType ?? 'Bearer').to.equal('Bearer');
  });
});
