import { expect } from 'chai';
import { decodeJwt } from 'jose';
import * as oauth from 'oauth4webapi';
import { capturedLog, startTestApp, type TestApp } from '../support/app.js';
import { basicAuth, bearer, buildPasswordUser, buildTenant, formPost, machineToken, type TestTenant } from '../support/wallet-builders.js';
import { discover, dpopProof, ISSUER, renamed, signingKey, toApp, type SigningKey } from '../support/oauth-clients.js';

describe('DPoP over HTTP (RFC 9449): tokens bound to a key, and requests that prove it', () => {
  let app: TestApp;
  let tenant: TestTenant;
  let strict: TestTenant;
  let key: SigningKey;
  let other: SigningKey;
  let lines: string[] = [];
  before(async () => {
    const captured = capturedLog();
    lines = captured.lines;
    app = await startTestApp({ log: captured.log });
    [key, other] = await Promise.all([signingKey('ES256'), signingKey('ES256')]);
    tenant = await buildTenant(app.service);
    strict = await buildTenant(app.service);
    await app.service.core.admin.setTenantClientSettings.setDpopRequired(strict.tenantId, true);
  });
  after(() => app.stop());

  const url = (path: string): string => `${ISSUER}${path}`;
  const basic = (who: TestTenant = tenant) => ({ authorization: basicAuth(who.clientId, who.clientSecret) });
  /** A machine token bound to `key`, from the token endpoint. */
  const boundMachineToken = async (who: TestTenant = tenant, with_: SigningKey = key): Promise<string> => {
    const res = await app.request(
      '/oauth/token',
      formPost({ grant_type: 'client_credentials' }, { ...basic(who), dpop: await dpopProof(with_, 'POST', url('/oauth/token')) }),
    );
    expect(res.status).to.equal(200);
    const body = (await res.json()) as { access_token: string; token_type: string };
    expect(body.token_type).to.equal('DPoP');
    return body.access_token;
  };
  /** A user token bound to `key`, from a password login. */
  const boundUserToken = async (): Promise<string> => {
    const user = await buildPasswordUser(app, await machineToken(app, tenant));
    const res = await app.request('/auth/login', {
      method: 'POST',
      headers: { 'content-type': 'application/json', dpop: await dpopProof(key, 'POST', url('/auth/login')) },
      body: JSON.stringify({ clientId: tenant.clientId, email: user.email, password: user.password }),
    });
    expect(res.status).to.equal(200);
    const body = (await res.json()) as { access_token: string; token_type: string };
    expect(body.token_type).to.equal('DPoP');
    return body.access_token;
  };
  const dpopGet = async (path: string, token: string, proof?: string): Promise<Response> =>
    app.request(path, {
      headers: { authorization: `DPoP ${token}`, ...(proof === undefined ? {} : { dpop: proof }) },
    });
  /** A 401 DPoP refusal: its `WWW-Authenticate` error code. */
  /** A DPoP-bound machine token as oauth4webapi gets one (client secret, its own proof signed by `with_`), and its DPoP handle. */
  const oauthBoundMachineToken = async (with_: SigningKey) => {
    const as = await discover(app);
    const client: oauth.Client = { client_id: tenant.clientId };
    const DPoP = oauth.DPoP(client, { privateKey: with_.privateKey, publicKey: with_.publicKey });
    const res = await oauth.clientCredentialsGrantRequest(
      as,
      client,
      oauth.ClientSecretBasic(tenant.clientSecret),
      {},
      { DPoP, ...toApp(app) },
    );
    return { as, DPoP, tokens: await oauth.processClientCredentialsResponse(as, client, res) };
  };

  const refusal = async (res: Response): Promise<string> => {
    expect(res.status).to.equal(401);
    expect(((await res.json()) as { reason: string }).reason).to.equal('invalid-dpop-proof');
    const challenge = res.headers.get('www-authenticate') ?? '';
    const m = /^DPoP error="([a-z_]+)"$/.exec(challenge);
    expect(m, challenge).not.to.equal(null);
    return m![1]!;
  };

  it('when oauth4webapi discovers the issuer, gets a DPoP-bound machine token and calls a resource with it, then 200', async () => {
    const { as, DPoP, tokens } = await oauthBoundMachineToken(key);
    expect(as.dpop_signing_alg_values_supported).to.deep.equal(['ES256', 'RS256', 'EdDSA', 'Ed25519']);
    expect(tokens.token_type).to.equal('dpop');
    expect(decodeJwt(tokens.access_token).cnf).to.deep.equal({ jkt: key.jkt });
    const users = await oauth.protectedResourceRequest(tokens.access_token, 'GET', new URL(url('/users')), new Headers(), null, {
      DPoP,
      ...toApp(app),
    });
    expect(users.status).to.equal(200);
  });

  it('when an app logs in with a proof and reads GET /me/balance with oauth4webapi’s DPoP, then 200; as Bearer, 401 DPoP invalid_token', async () => {
    const token = await boundUserToken();
    const client: oauth.Client = { client_id: tenant.clientId };
    const DPoP = oauth.DPoP(client, { privateKey: key.privateKey, publicKey: key.publicKey });
    for (let i = 0; i < 2; i++) {
      const res = await oauth.protectedResourceRequest(token, 'GET', new URL(url('/me/balance')), new Headers(), null, {
        DPoP,
        ...toApp(app),
      });
      expect(res.status).to.equal(200);
    }
    expect(await refusal(await app.request('/me/balance', { headers: bearer(token) }))).to.equal('invalid_token');
  });

  it('when proofs are signed with an Ed25519 key as Ed25519 (as oauth4webapi does) or as EdDSA, then both bind the same jkt and either name proves the token', async () => {
    const ed = await signingKey('Ed25519');
    const { tokens: named } = await oauthBoundMachineToken(ed);
    expect(named.token_type).to.equal('dpop');
    const legacy = await boundMachineToken(tenant, renamed(ed, 'EdDSA'));
    for (const token of [named.access_token, legacy]) {
      expect(decodeJwt(token).cnf).to.deep.equal({ jkt: ed.jkt });
      for (const alg of ['Ed25519', 'EdDSA'] as const) {
        expect((await dpopGet('/users', token, await dpopProof(renamed(ed, alg), 'GET', url('/users'), { token }))).status, alg).to.equal(
          200,
        );
      }
    }
  });

  it('when a bound token comes without a proof, with another key’s proof, or a proof for another method or URL, then 401 invalid_dpop_proof', async () => {
    const token = await boundMachineToken();
    expect(await refusal(await dpopGet('/users', token))).to.equal('invalid_dpop_proof');
    expect(await refusal(await dpopGet('/users', token, await dpopProof(other, 'GET', url('/users'), { token })))).to.equal(
      'invalid_dpop_proof',
    );
    expect(await refusal(await dpopGet('/users', token, await dpopProof(key, 'POST', url('/users'), { token })))).to.equal(
      'invalid_dpop_proof',
    );
    expect(await refusal(await dpopGet('/users', token, await dpopProof(key, 'GET', url('/me'), { token })))).to.equal(
      'invalid_dpop_proof',
    );
    // The service's own address is not its public URL.
    expect(await refusal(await dpopGet('/users', token, await dpopProof(key, 'GET', `${app.url}/users`, { token })))).to.equal(
      'invalid_dpop_proof',
    );
    // The query is not part of htu.
    expect((await dpopGet('/users?limit=1', token, await dpopProof(key, 'GET', url('/users'), { token }))).status).to.equal(200);
  });

  it('when a proof is sent twice, its ath is another token’s or missing, or it is stale, then 401 invalid_dpop_proof', async () => {
    const token = await boundMachineToken();
    const proof = await dpopProof(key, 'GET', url('/users'), { token });
    expect((await dpopGet('/users', token, proof)).status).to.equal(200);
    expect(await refusal(await dpopGet('/users', token, proof))).to.equal('invalid_dpop_proof');
    expect(await refusal(await dpopGet('/users', token, await dpopProof(key, 'GET', url('/users'), { token: `${token}x` })))).to.equal(
      'invalid_dpop_proof',
    );
    expect(await refusal(await dpopGet('/users', token, await dpopProof(key, 'GET', url('/users'))))).to.equal('invalid_dpop_proof');
    const stale = await dpopProof(key, 'GET', url('/users'), { token, claims: { iat: Math.floor(Date.now() / 1000) - 120 } });
    expect(await refusal(await dpopGet('/users', token, stale))).to.equal('invalid_dpop_proof');
  });

  it('when an unbound token is sent with the DPoP scheme, then 401 DPoP invalid_token; as Bearer it works as always', async () => {
    const token = await machineToken(app, tenant);
    expect(await refusal(await dpopGet('/users', token, await dpopProof(key, 'GET', url('/users'), { token })))).to.equal('invalid_token');
    expect((await app.request('/users', { headers: bearer(token) })).status).to.equal(200);
    // A token that is no token of ours, with the DPoP scheme: invalid-token, challenged as DPoP.
    const forged = await dpopGet('/users', `${token}x`, await dpopProof(key, 'GET', url('/users'), { token: `${token}x` }));
    expect(forged.status).to.equal(401);
    expect(forged.headers.get('www-authenticate')).to.equal('DPoP error="invalid_token"');
    expect(((await forged.json()) as { reason: string }).reason).to.equal('invalid-token');
  });

  it('when a token request carries a bad proof, then 400 invalid_dpop_proof and no token', async () => {
    const proofs = [
      await dpopProof(key, 'GET', url('/oauth/token')),
      await dpopProof(key, 'POST', url('/oauth/introspect')),
      await dpopProof(key, 'POST', url('/oauth/token'), { token: 'abc' }),
      'not-a-proof',
    ];
    for (const proof of proofs) {
      const res = await app.request('/oauth/token', formPost({ grant_type: 'client_credentials' }, { ...basic(), dpop: proof }));
      expect(res.status).to.equal(400);
      expect(((await res.json()) as { error: string }).error).to.equal('invalid_dpop_proof');
    }
  });

  it('when the tenant requires DPoP, then an unbound token request is 400 invalid_dpop_proof, a bound one gets a DPoP token', async () => {
    const res = await app.request('/oauth/token', formPost({ grant_type: 'client_credentials' }, basic(strict)));
    expect(res.status).to.equal(400);
    expect(((await res.json()) as { error: string }).error).to.equal('invalid_dpop_proof');
    const token = await boundMachineToken(strict);
    expect((await dpopGet('/users', token, await dpopProof(key, 'GET', url('/users'), { token }))).status).to.equal(200);
  });

  it('when a required-DPoP tenant’s user logs in without a proof, then 400 invalid-dpop-proof', async () => {
    const machine = await boundMachineToken(strict);
    const email = `p.${Date.now()}@example.com`;
    const created = await app.request('/users', {
      method: 'POST',
      headers: {
        authorization: `DPoP ${machine}`,
        dpop: await dpopProof(key, 'POST', url('/users'), { token: machine }),
        'content-type': 'application/json',
      },
      body: JSON.stringify({ externalUserRef: `ref-${Date.now()}`, email, password: 'a-long-password-1234' }),
    });
    expect(created.status).to.equal(201);
    const login = await app.request('/auth/login', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ clientId: strict.clientId, email, password: 'a-long-password-1234' }),
    });
    expect(login.status).to.equal(400);
    expect(await login.json()).to.include({ reason: 'invalid-dpop-proof', error: 'invalid_dpop_proof' });
  });

  it('when a backend asks for a delegated token with a proof, then the user token is bound to it', async () => {
    const machine = await machineToken(app, tenant);
    const res = await app.request('/auth/delegated-token', {
      method: 'POST',
      headers: { ...bearer(machine), 'content-type': 'application/json', dpop: await dpopProof(key, 'POST', url('/auth/delegated-token')) },
      body: JSON.stringify({ externalUserRef: `ref-${Date.now()}` }),
    });
    expect(res.status).to.equal(200);
    const body = (await res.json()) as { access_token: string; token_type: string };
    expect(body.token_type).to.equal('DPoP');
    expect(decodeJwt(body.access_token).cnf).to.deep.equal({ jkt: key.jkt });
    const token = body.access_token;
    expect((await dpopGet('/me/balance', token, await dpopProof(key, 'GET', url('/me/balance'), { token }))).status).to.equal(200);
  });

  it('when a backend calls with a DPoP-bound machine token, then the delegated user token is bound to the same key', async () => {
    const machine = await boundMachineToken();
    const res = await app.request('/auth/delegated-token', {
      method: 'POST',
      headers: {
        authorization: `DPoP ${machine}`,
        'content-type': 'application/json',
        dpop: await dpopProof(key, 'POST', url('/auth/delegated-token'), { token: machine }),
      },
      body: JSON.stringify({ externalUserRef: `ref-${Date.now()}` }),
    });
    expect(res.status).to.equal(200);
    const body = (await res.json()) as { access_token: string; token_type: string };
    expect(body.token_type).to.equal('DPoP');
    expect(decodeJwt(body.access_token).cnf).to.deep.equal({ jkt: key.jkt });
    const token = body.access_token;
    expect((await dpopGet('/me/balance', token, await dpopProof(key, 'GET', url('/me/balance'), { token }))).status).to.equal(200);
    // As a bearer token it is refused: it is bound.
    expect((await app.request('/me/balance', { headers: bearer(token) })).status).to.equal(401);
  });

  it('when a bound token is introspected, then token_type DPoP and cnf.jkt', async () => {
    const token = await boundMachineToken();
    const res = await app.request('/oauth/introspect', formPost({ token }, basic()));
    expect(await res.json()).to.deep.include({ active: true, token_type: 'DPoP', cnf: { jkt: key.jkt } });
  });

  it('when requests carry proofs and bound tokens, then no log line holds a proof or a token', async () => {
    const token = await boundMachineToken();
    const proof = await dpopProof(key, 'GET', url('/users'), { token });
    await dpopGet('/users', token, proof);
    await dpopGet('/users', token, proof);
    await new Promise((r) => setTimeout(r, 50));
    const logged = lines.join('');
    expect(logged).to.include('/users');
    expect(logged).not.to.include(token.split('.')[2]!);
    expect(logged).not.to.include(proof.split('.')[2]!);
    expect(logged).not.to.include(proof.split('.')[1]!);
  });
});
