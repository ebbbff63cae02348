import { expect } from 'chai';
import { createHash } from 'node:crypto';
import { calculateJwkThumbprint, decodeJwt, exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWK } from 'jose';
import { createMemoryPorts, type PortSet } from '../../src/bootstrap/ports.js';
import { identityUseCases } from '../../src/bootstrap/core.js';
import type { DpopRequestContext } from '../../src/application/wallet/check-dpop-proof.js';
import { DpopRefusal, htuOf } from '../../src/domain/identity/dpop.js';
import type { Tenant } from '../../src/domain/identity/tenant.js';
import { unique } from 'partner-booking-wallet/testing';
import { ManualClock } from '../support/clock.js';

const TOKEN_URL = 'https://wallet.example/oauth/token';
const ME_URL = 'https://wallet.example/me/balance';

interface ProofKey {
  readonly alg: 'ES256' | 'RS256' | 'EdDSA';
  readonly privateKey: CryptoKey;
  readonly publicJwk: JWK;
  readonly jkt: string;
}
const proofKey = async (alg: ProofKey['alg'] = 'ES256'): Promise<ProofKey> => {
  const pair = await generateKeyPair(alg, { extractable: true });
  const publicJwk = await exportJWK(pair.publicKey);
  return { alg, privateKey: pair.privateKey, publicJwk, jkt: await calculateJwkThumbprint(publicJwk, 'sha256') };
};
const ath = (token: string): string => createHash('sha256').update(token).digest('base64url');

/** The DPoP refusal a promise rejects with: `<oauthError>` (reason `invalid-dpop-proof`), another reason, or `resolved`. */
const refusalOf = async (p: Promise<unknown>): Promise<string> => {
  try {
    await p;
    return 'resolved';
  } catch (err) {
    if (err instanceof DpopRefusal) {
      expect(err.reason).to.equal('invalid-dpop-proof');
      return err.oauthError;
    }
    return (err as { reason?: string }).reason ?? String(err);
  }
};

describe('DPoP (RFC 9449): proofs, bound tokens and their checks', () => {
  const clock = new ManualClock();
  let ports: PortSet;
  let uc: ReturnType<typeof identityUseCases>;
  let key: ProofKey;
  let other: ProofKey;
  let tenant: Tenant;
  const nowS = (): number => Math.floor(clock.now().getTime() / 1000);
  const secret = { clientId: '', clientSecret: 'the-secret' };

  before(async () => {
    [key, other] = await Promise.all([proofKey(), proofKey('EdDSA')]);
  });
  beforeEach(async () => {
    clock.reset();
    ports = createMemoryPorts({ clock });
    await ports.start();
    uc = identityUseCases(ports, { oauth: { issuer: 'https://wallet.example', tokenEndpoint: TOKEN_URL } });
    tenant = {
      id: `tnt_${unique()}`,
      name: 'Bound',
      clientId: `cli_${unique()}`,
      clientSecretHash: ports.secretHasher.hash('the-secret'),
      currency: 'THB',
      createdAt: clock.now(),
    };
    await ports.tenants.createTenant(tenant);
    secret.clientId = tenant.clientId;
  });
  afterEach(() => ports.stop());

  const proof = (
    k: ProofKey,
    claims: Record<string, unknown> = {},
    header: Record<string, unknown> = {},
    url = TOKEN_URL,
    method = 'POST',
  ): Promise<string> =>
    new SignJWT({ htm: method, htu: url, iat: nowS(), jti: unique(), ...claims })
      .setProtectedHeader({ alg: k.alg, typ: 'dpop+jwt', jwk: k.publicJwk, ...header })
      .sign(k.privateKey);
  const at = (p: string | readonly string[] | undefined, url = TOKEN_URL, method = 'POST'): DpopRequestContext => ({
    proof: p,
    method,
    url,
  });

  const boundMachineToken = async (): Promise<string> => {
    const issued = await uc.issueMachineToken.execute(secret, at(await proof(key)));
    expect(issued.tokenType).to.equal('DPoP');
    return issued.accessToken;
  };
  const resource = async (token: string, claims: Record<string, unknown> = {}, k = key, scheme = 'DPoP') =>
    uc.verifyWalletToken.authenticateRequest(
      `${scheme} ${token}`,
      at(await proof(k, { ath: ath(token), ...claims }, {}, ME_URL, 'GET'), ME_URL, 'GET'),
    );

  describe('at the token endpoints', () => {
    it('when a machine token is requested with a proof, then it is a DPoP token bound to the proof key (cnf.jkt), and introspection says so', async () => {
      const token = await boundMachineToken();
      expect(decodeJwt(token).cnf).to.deep.equal({ jkt: key.jkt });
      expect((await ports.tokenVerifier.inspect(token)).jkt).to.equal(key.jkt);
      const seen = await uc.introspectToken.execute(tenant, token);
      expect(seen).to.include({ active: true, token_type: 'DPoP' });
      expect(seen).to.deep.include({ cnf: { jkt: key.jkt } });
      // Without a proof the token is a bearer token, as before.
      const plain = await uc.issueMachineToken.execute(secret);
      expect(plain.tokenType ?? 'Bearer').to.equal('Bearer');
      expect(decodeJwt(plain.accessToken)).to.not.have.property('cnf');
      expect(await uc.introspectToken.execute(tenant, plain.accessToken))
        .to.include({ token_type: 'Bearer' })
        .and.not.have.property('cnf');
    });

    it('when login and delegation get a proof, then their user tokens are bound too', async () => {
      const passwordHash = await ports.passwordHasher.hash('a long password');
      await ports.tenants.createUser({
        id: `usr_${unique()}`,
        tenantId: tenant.id,
        externalUserRef: `ref-${unique()}`,
        email: 'bound@example.com',
        passwordHash,
        createdAt: clock.now(),
      });
      const login = await uc.logIn.execute(
        { clientId: tenant.clientId, email: 'bound@example.com', password: 'a long password', address: '192.0.2.1' },
        at(await proof(key, {}, {}, 'https://wallet.example/auth/login'), 'https://wallet.example/auth/login'),
      );
      expect([login.tokenType, decodeJwt(login.accessToken).cnf]).to.deep.equal(['DPoP', { jkt: key.jkt }]);
      const machine = { kind: 'machine' as const, tenantId: tenant.id, clientId: tenant.clientId };
      const url = 'https://wallet.example/auth/delegated-token';
      const delegated = await uc.issueDelegatedToken.execute(machine, `ref-${unique()}`, at(await proof(other, {}, {}, url), url));
      expect([delegated.tokenType, decodeJwt(delegated.accessToken).cnf]).to.deep.equal(['DPoP', { jkt: other.jkt }]);
    });

    it('when the tenant requires DPoP, then a token request without a proof is invalid_dpop_proof, and one with a proof is bound', async () => {
      await ports.tenants.updateClientSettings(tenant.id, { dpopRequired: true });
      expect(await refusalOf(uc.issueMachineToken.execute(secret))).to.equal('invalid_dpop_proof');
      expect(await refusalOf(uc.issueMachineToken.execute(secret, at(undefined)))).to.equal('invalid_dpop_proof');
      const machine = { kind: 'machine' as const, tenantId: tenant.id, clientId: tenant.clientId };
      expect(await refusalOf(uc.issueDelegatedToken.execute(machine, `ref-${unique()}`))).to.equal('invalid_dpop_proof');
      expect((await uc.issueMachineToken.execute(secret, at(await proof(key)))).tokenType).to.equal('DPoP');
    });

    const refusedProofs: Array<[string, (k: ProofKey) => Promise<string>]> = [
      ['typ is not dpop+jwt', (k) => proof(k, {}, { typ: 'JWT' })],
      ['typ is missing', (k) => proof(k, {}, { typ: undefined })],
      ['the embedded jwk is missing', (k) => proof(k, {}, { jwk: undefined })],
      ['the embedded jwk carries a private member', async (k) => proof(k, {}, { jwk: { ...k.publicJwk, d: 'AAAA' } })],
      ['the proof is signed by another key than the embedded one', (k) => proof(k, {}, { jwk: other.publicJwk })],
      ['htm is another method', (k) => proof(k, { htm: 'GET' })],
      ['htm is in lower case', (k) => proof(k, { htm: 'post' })],
      ['htu is another path', (k) => proof(k, { htu: 'https://wallet.example/oauth/revoke' })],
      ['htu is another host', (k) => proof(k, { htu: 'https://evil.example/oauth/token' })],
      ['htu is missing', (k) => proof(k, { htu: undefined })],
      ['iat is 61 s old', (k) => proof(k, { iat: nowS() - 61 })],
      ['iat is 61 s ahead', (k) => proof(k, { iat: nowS() + 61 })],
      ['iat is missing', (k) => proof(k, { iat: undefined })],
      ['jti is missing', (k) => proof(k, { jti: undefined })],
      ['ath is given at the token endpoint', (k) => proof(k, { ath: ath('x') })],
    ];
    for (const [what, make] of refusedProofs) {
      it(`when ${what}, then the token request is invalid_dpop_proof`, async () => {
        expect(await refusalOf(uc.issueMachineToken.execute(secret, at(await make(key))))).to.equal('invalid_dpop_proof');
      });
    }

    it('when the proof is HMAC-signed, unsigned, or not a JWT, then invalid_dpop_proof', async () => {
      const hmac = await new SignJWT({ htm: 'POST', htu: TOKEN_URL, iat: nowS(), jti: unique() })
        .setProtectedHeader({ alg: 'HS256', typ: 'dpop+jwt', jwk: { kty: 'oct', k: 'c2VjcmV0c2VjcmV0c2VjcmV0c2VjcmV0' } as never })
        .sign(new TextEncoder().encode('secretsecretsecretsecretsecretse'));
      const none = `${Buffer.from(JSON.stringify({ alg: 'none', typ: 'dpop+jwt', jwk: key.publicJwk })).toString('base64url')}.${Buffer.from(
        JSON.stringify({ htm: 'POST', htu: TOKEN_URL, iat: nowS(), jti: unique() }),
      ).toString('base64url')}.`;
      for (const p of [hmac, none, 'garbage', ''])
        expect(await refusalOf(uc.issueMachineToken.execute(secret, at(p))), p.slice(0, 20)).to.equal('invalid_dpop_proof');
    });

    it('when a proof is used twice, or two DPoP headers are sent, then invalid_dpop_proof', async () => {
      const p = await proof(key);
      await uc.issueMachineToken.execute(secret, at(p));
      expect(await refusalOf(uc.issueMachineToken.execute(secret, at(p)))).to.equal('invalid_dpop_proof');
      expect(await refusalOf(uc.issueMachineToken.execute(secret, at([await proof(key), await proof(key)])))).to.equal(
        'invalid_dpop_proof',
      );
    });

    it('when htu differs only by query, fragment, default port or case of the host, then the proof matches; RS256 and EdDSA keys work', async () => {
      expect(
        (await uc.issueMachineToken.execute(secret, at(await proof(key, { htu: `${TOKEN_URL}?a=1#f` }), `${TOKEN_URL}?b=2`))).tokenType,
      ).to.equal('DPoP');
      expect(
        await uc.issueMachineToken.execute(secret, at(await proof(key, { htu: 'https://WALLET.example:443/oauth/token' }))),
      ).to.have.property('tokenType', 'DPoP');
      expect(await uc.issueMachineToken.execute(secret, at(await proof(await proofKey('RS256'))))).to.have.property('tokenType', 'DPoP');
      expect(await uc.issueMachineToken.execute(secret, at(await proof(other)))).to.have.property('tokenType', 'DPoP');
      expect(htuOf('https://a.example/x/y?q#f')).to.equal('https://a.example/x/y');
      expect(htuOf('http://a.example:80')).to.equal('http://a.example/');
      expect(htuOf('https://a.example:8443/p')).to.equal('https://a.example:8443/p');
      expect(htuOf('/relative')).to.equal(null);
    });

    it('when iat is 59 s old or ahead, then the proof is still accepted', async () => {
      expect((await uc.issueMachineToken.execute(secret, at(await proof(key, { iat: nowS() - 59 })))).tokenType).to.equal('DPoP');
      expect((await uc.issueMachineToken.execute(secret, at(await proof(key, { iat: nowS() + 59 })))).tokenType).to.equal('DPoP');
    });

    it('when client authentication fails, then the proof is not spent', async () => {
      const p = await proof(key);
      const wrong = await refusalOf(uc.issueMachineToken.execute({ clientId: tenant.clientId, clientSecret: 'wrong' }, at(p)));
      expect(wrong).to.equal('invalid-client');
      expect((await uc.issueMachineToken.execute(secret, at(p))).tokenType).to.equal('DPoP');
    });
  });

  describe('on resource requests', () => {
    it('when a bound token comes as DPoP with a proof for this request, signed by its key, then the caller is authenticated', async () => {
      const token = await boundMachineToken();
      const caller = await resource(token);
      expect(caller.principal).to.deep.equal({ kind: 'machine', tenantId: tenant.id, clientId: tenant.clientId });
      expect(caller.token.jkt).to.equal(key.jkt);
    });

    it('when a bound token comes as Bearer (with or without a proof), then invalid_token with reason invalid-dpop-proof', async () => {
      const token = await boundMachineToken();
      expect(await refusalOf(uc.verifyWalletToken.authenticate(`Bearer ${token}`))).to.equal('invalid_token');
      expect(await refusalOf(resource(token, {}, key, 'Bearer'))).to.equal('invalid_token');
      expect(await refusalOf(uc.verifyWalletToken.execute(`Bearer ${token}`))).to.equal('invalid_token');
    });

    it('when a bound token comes without a proof, with a proof by another key, without ath or with another token’s ath, then invalid_dpop_proof', async () => {
      const token = await boundMachineToken();
      expect(await refusalOf(uc.verifyWalletToken.authenticateRequest(`DPoP ${token}`, at(undefined, ME_URL, 'GET')))).to.equal(
        'invalid_dpop_proof',
      );
      expect(await refusalOf(resource(token, {}, other))).to.equal('invalid_dpop_proof');
      expect(await refusalOf(resource(token, { ath: undefined }))).to.equal('invalid_dpop_proof');
      expect(await refusalOf(resource(token, { ath: ath(`${token}x`) }))).to.equal('invalid_dpop_proof');
      expect(await refusalOf(resource(token, { htu: 'https://wallet.example/me' }))).to.equal('invalid_dpop_proof');
      expect(await refusalOf(resource(token, { htm: 'POST' }))).to.equal('invalid_dpop_proof');
      expect(await refusalOf(resource(token, { iat: nowS() - 120 }))).to.equal('invalid_dpop_proof');
    });

    it('when a proof for a resource request is replayed, then invalid_dpop_proof', async () => {
      const token = await boundMachineToken();
      const p = await proof(key, { ath: ath(token) }, {}, ME_URL, 'GET');
      await uc.verifyWalletToken.authenticateRequest(`DPoP ${token}`, at(p, ME_URL, 'GET'));
      expect(await refusalOf(uc.verifyWalletToken.authenticateRequest(`DPoP ${token}`, at(p, ME_URL, 'GET')))).to.equal(
        'invalid_dpop_proof',
      );
    });

    it('when an unbound token comes as DPoP, then invalid_token; as Bearer it works as before; a bad token stays invalid-token', async () => {
      const plain = (await uc.issueMachineToken.execute(secret)).accessToken;
      expect(await refusalOf(resource(plain))).to.equal('invalid_token');
      expect((await uc.verifyWalletToken.authenticateRequest(`Bearer ${plain}`, at(undefined, ME_URL, 'GET'))).principal.kind).to.equal(
        'machine',
      );
      expect(await refusalOf(uc.verifyWalletToken.authenticateRequest('DPoP not-a-token', at(await proof(key), ME_URL, 'GET')))).to.equal(
        'invalid-token',
      );
      expect(await refusalOf(uc.verifyWalletToken.authenticateRequest(undefined, at(undefined, ME_URL, 'GET')))).to.equal('invalid-token');
    });

    it('when a bound token is revoked, then it is refused however it is presented', async () => {
      const token = await boundMachineToken();
      await uc.revokeToken.execute(tenant, token);
      expect(await refusalOf(resource(token))).to.equal('invalid-token');
      expect((await uc.introspectToken.execute(tenant, token)).active).to.equal(false);
    });
  });
});
