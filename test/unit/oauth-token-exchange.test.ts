import { expect } from 'chai';
import { calculateJwkThumbprint, decodeJwt, exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWK } from 'jose';
import { createMemoryPorts, type PortSet } from '../../src/bootstrap/ports.js';
import { identityUseCases } from '../../src/bootstrap/core.js';
import type { Tenant } from '../../src/domain/identity/tenant.js';
import { TOKEN_EXCHANGE } from '../../src/domain/identity/tenant-jwt.js';
import { reasonOf, unique } from 'partner-booking-wallet/testing';
import { ManualClock } from '../support/clock.js';

const ISSUER = 'https://wallet.example';
const TOKEN_URL = 'https://wallet.example/oauth/token';

describe('token exchange (RFC 8693): a tenant-signed subject token for a delegated user token', () => {
  const clock = new ManualClock();
  let ports: PortSet;
  let uc: ReturnType<typeof identityUseCases>;
  let tenant: Tenant;
  let signer: { privateKey: CryptoKey; publicJwk: JWK };
  let stranger: CryptoKey;
  const nowS = (): number => Math.floor(clock.now().getTime() / 1000);

  before(async () => {
    const pair = await generateKeyPair('ES256', { extractable: true });
    signer = { privateKey: pair.privateKey, publicJwk: { ...(await exportJWK(pair.publicKey)), kid: 'tenant-1' } };
    stranger = (await generateKeyPair('ES256')).privateKey;
  });
  beforeEach(async () => {
    clock.reset();
    ports = createMemoryPorts({ clock });
    await ports.start();
    uc = identityUseCases(ports, { oauth: { issuer: ISSUER, tokenEndpoint: TOKEN_URL } });
    const t: Tenant = {
      id: `tnt_${unique()}`,
      name: 'Exchanger',
      clientId: `cli_${unique()}`,
      clientSecretHash: ports.secretHasher.hash('s'),
      currency: 'THB',
      createdAt: clock.now(),
    };
    await ports.tenants.createTenant(t);
    tenant = (await ports.tenants.updateClientSettings(t.id, { jwks: { keys: [signer.publicJwk as Record<string, string>] } }))!;
  });
  afterEach(() => ports.stop());

  const subjectToken = (sub: string, claims: Record<string, unknown> = {}, key: CryptoKey = signer.privateKey): Promise<string> =>
    new SignJWT({ iss: tenant.clientId, sub, aud: ISSUER, exp: nowS() + 120, iat: nowS(), jti: unique(), ...claims })
      .setProtectedHeader({ alg: 'ES256', kid: 'tenant-1' })
      .sign(key);
  const exchange = (token: string | undefined, type: string | undefined = TOKEN_EXCHANGE.jwtTokenType) =>
    uc.exchangeToken.execute(tenant, { subjectToken: token, subjectTokenType: type });

  it('when the subject token is valid, then the answer is the delegated user token of that person, created on first use and the same user after', async () => {
    const ref = `person-${unique()}`;
    const first = await exchange(await subjectToken(ref));
    expect(first.issuedTokenType).to.equal('urn:ietf:params:oauth:token-type:access_token');
    const principal = await ports.tokenVerifier.verify(first.accessToken);
    expect(principal).to.deep.equal({
      kind: 'user',
      tenantId: tenant.id,
      userId: first.userId,
      amr: ['tenant_delegated'],
      act: { sub: tenant.clientId },
      clientId: tenant.clientId,
    });
    // The same person as /auth/delegated-token mints for the ref, both ways round.
    const machine = { kind: 'machine' as const, tenantId: tenant.id, clientId: tenant.clientId };
    expect((await uc.issueDelegatedToken.execute(machine, ref)).userId).to.equal(first.userId);
    const other = `person-${unique()}`;
    const viaDelegation = await uc.issueDelegatedToken.execute(machine, other);
    expect((await exchange(await subjectToken(other))).userId).to.equal(viaDelegation.userId);
    expect(first.expiresIn).to.equal((await uc.issueDelegatedToken.execute(machine, ref)).expiresIn);
  });

  it('when the same subject token (or jti) comes again, then invalid-grant', async () => {
    const token = await subjectToken(`p-${unique()}`);
    await exchange(token);
    expect(await reasonOf(exchange(token))).to.equal('invalid-grant');
  });

  const refused: Array<[string, () => Promise<string>]> = [
    ['signed by an unregistered key', () => subjectToken('p-1', {}, stranger)],
    ['iss is another client', () => subjectToken('p-1', { iss: 'cli_other' })],
    ['aud is the token endpoint, not the issuer', () => subjectToken('p-1', { aud: TOKEN_URL })],
    ['aud is missing', () => subjectToken('p-1', { aud: undefined })],
    ['exp is more than 5 minutes ahead', () => subjectToken('p-1', { exp: nowS() + 330 })],
    ['exp has passed', () => subjectToken('p-1', { exp: nowS() - 30 })],
    ['exp is missing', () => subjectToken('p-1', { exp: undefined })],
    ['jti is missing', () => subjectToken('p-1', { jti: undefined })],
    ['sub is no externalUserRef', () => subjectToken('has spaces')],
    ['sub is too long', () => subjectToken('x'.repeat(129))],
    ['sub is missing', () => subjectToken('p-1', { sub: undefined })],
    ['it is not a JWT', () => Promise.resolve('not-a-jwt')],
  ];
  for (const [what, make] of refused) {
    it(`when the subject token is wrong (${what}), then invalid-grant and no user is created`, async () => {
      expect(await reasonOf(exchange(await make()))).to.equal('invalid-grant');
      expect(await ports.tenants.listUsers(tenant.id, null, 10)).to.deep.equal([]);
    });
  }

  it('when the client has no registered keys, then invalid-grant', async () => {
    await ports.tenants.updateClientSettings(tenant.id, { jwks: null });
    tenant = (await ports.tenants.findTenant(tenant.id))!;
    expect(await reasonOf(exchange(await subjectToken('p-1')))).to.equal('invalid-grant');
  });

  it('when subject_token or its type is missing, or the type is another, then invalid-request', async () => {
    expect(await reasonOf(exchange(undefined))).to.equal('invalid-request');
    const untyped = uc.exchangeToken.execute(tenant, { subjectToken: await subjectToken('p-1'), subjectTokenType: undefined });
    expect(await reasonOf(untyped)).to.equal('invalid-request');
    expect(await reasonOf(exchange(await subjectToken('p-1'), TOKEN_EXCHANGE.accessTokenType))).to.equal('invalid-request');
  });

  it('when the person is disabled, then user-disabled, as for delegation', async () => {
    const ref = `p-${unique()}`;
    const { userId } = await exchange(await subjectToken(ref));
    await ports.tenants.setUserDisabled(userId, clock.now());
    expect(await reasonOf(exchange(await subjectToken(ref)))).to.equal('user-disabled');
  });

  it('when a DPoP proof comes with the exchange, then the user token is bound to its key', async () => {
    const pair = await generateKeyPair('ES256', { extractable: true });
    const jwk = await exportJWK(pair.publicKey);
    const proof = await new SignJWT({ htm: 'POST', htu: TOKEN_URL, iat: nowS(), jti: unique() })
      .setProtectedHeader({ alg: 'ES256', typ: 'dpop+jwt', jwk })
      .sign(pair.privateKey);
    const issued = await uc.exchangeToken.execute(
      tenant,
      { subjectToken: await subjectToken(`p-${unique()}`), subjectTokenType: TOKEN_EXCHANGE.jwtTokenType },
      { proof, method: 'POST', url: TOKEN_URL },
    );
    expect(issued.tokenType).to.equal('DPoP');
    expect(decodeJwt(issued.accessToken).cnf).to.deep.equal({ jkt: await calculateJwkThumbprint(jwk, 'sha256') });
  });
});
