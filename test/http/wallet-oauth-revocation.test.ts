import { expect } from 'chai';
import * as client from 'openid-client';
import { SignJWT, decodeJwt, generateKeyPair, importJWK, type CryptoKey } from 'jose';
import { startTestApp, type TestApp } from '../support/app.js';
import { unique } from '../support/builders.js';
import { reasonIn } from '../support/errors.js';
import {
  basicAuth,
  bearer,
  buildPasswordUser,
  buildTenant,
  delegatedToken,
  formPost,
  login,
  machineToken,
  testAddress,
  testSigningKey,
  type TestTenant,
} from '../support/wallet-builders.js';

const ISSUER = 'https://pbw.local';

/** openid-client pointed at the issuer only; its requests to the issuer's origin reach the test app. */
async function discover(app: TestApp, tenant: TestTenant, auth: 'basic' | 'post' = 'basic'): Promise<client.Configuration> {
  const customFetch = (url: string, init: client.CustomFetchOptions) => fetch(url.replace(ISSUER, app.url), init as RequestInit);
  const authentication = auth === 'basic' ? client.ClientSecretBasic(tenant.clientSecret) : client.ClientSecretPost(tenant.clientSecret);
  return client.discovery(new URL(ISSUER), tenant.clientId, undefined, authentication, {
    algorithm: 'oauth2',
    [client.customFetch]: customFetch,
  });
}

describe('OAuth 2.0 for tenants: metadata, revocation, introspection, sign-out', () => {
  let app: TestApp;
  let tenant: TestTenant;
  let other: TestTenant;
  let machine: string;
  let key: Awaited<ReturnType<typeof testSigningKey>>;

  before(async () => {
    key = await testSigningKey();
    app = await startTestApp({ env: { TOKEN_SIGNING_KEY: JSON.stringify(key.privateJwk), TRUST_PROXY: '1' } });
    tenant = await buildTenant(app.service);
    other = await buildTenant(app.service);
    machine = await machineToken(app, tenant);
  });
  after(() => app.stop());

  const revoke = (token: string, who: TestTenant = tenant) =>
    app.request('/oauth/revoke', formPost({ token }, { authorization: basicAuth(who.clientId, who.clientSecret) }));
  const introspect = async (token: string, who: TestTenant = tenant): Promise<Record<string, unknown>> => {
    const res = await app.request('/oauth/introspect', formPost({ token }, { authorization: basicAuth(who.clientId, who.clientSecret) }));
    expect(res.status).to.equal(200);
    expect(res.headers.get('cache-control')).to.equal('no-store');
    return (await res.json()) as Record<string, unknown>;
  };
  const status = async (path: string, token: string) => (await app.request(path, { headers: bearer(token) })).status;

  describe('GET /.well-known/oauth-authorization-server', () => {
    it('when it is read, then the RFC 8414 metadata names the issuer of the tokens and every endpoint under it', async () => {
      const res = await app.request('/.well-known/oauth-authorization-server');
      expect(res.status).to.equal(200);
      expect(res.headers.get('content-type')).to.match(/^application\/json/);
      const meta = (await res.json()) as Record<string, unknown>;
      expect(meta).to.deep.include({
        issuer: ISSUER,
        token_endpoint: `${ISSUER}/oauth/token`,
        jwks_uri: `${ISSUER}/.well-known/jwks.json`,
        revocation_endpoint: `${ISSUER}/oauth/revoke`,
        introspection_endpoint: `${ISSUER}/oauth/introspect`,
        grant_types_supported: ['client_credentials', 'urn:ietf:params:oauth:grant-type:token-exchange'],
        token_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post', 'private_key_jwt'],
        token_endpoint_auth_signing_alg_values_supported: ['ES256', 'RS256', 'EdDSA', 'Ed25519'],
        revocation_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post', 'private_key_jwt'],
        revocation_endpoint_auth_signing_alg_values_supported: ['ES256', 'RS256', 'EdDSA', 'Ed25519'],
        introspection_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post', 'private_key_jwt'],
        introspection_endpoint_auth_signing_alg_values_supported: ['ES256', 'RS256', 'EdDSA', 'Ed25519'],
        dpop_signing_alg_values_supported: ['ES256', 'RS256', 'EdDSA', 'Ed25519'],
      });
      // The issuer in the metadata is the `iss` the tokens carry.
      expect(decodeJwt(machine).iss).to.equal(meta.issuer);
    });

    it('when openid-client knows only the issuer, then it discovers the endpoints and gets, introspects and revokes a token', async () => {
      for (const auth of ['basic', 'post'] as const) {
        const config = await discover(app, tenant, auth);
        expect(config.serverMetadata()).to.include({ issuer: ISSUER, revocation_endpoint: `${ISSUER}/oauth/revoke` });
        const tokens = await client.clientCredentialsGrant(config);
        expect(tokens.token_type).to.equal('bearer');
        const live = await client.tokenIntrospection(config, tokens.access_token);
        expect(live).to.include({ active: true, sub: tenant.clientId, client_id: tenant.clientId });
        await client.tokenRevocation(config, tokens.access_token);
        expect(await status('/users', tokens.access_token), auth).to.equal(401);
        expect(await client.tokenIntrospection(config, tokens.access_token)).to.deep.equal({ active: false });
      }
    });
  });

  describe('POST /oauth/revoke', () => {
    it('when a tenant revokes its user token, then 200 with no body and the token answers 401 invalid-token at once', async () => {
      const user = await delegatedToken(app, machine);
      expect(await status('/me/balance', user.token)).to.equal(200);
      const res = await revoke(user.token);
      expect(res.status).to.equal(200);
      expect(res.headers.get('cache-control')).to.equal('no-store');
      expect(await res.text()).to.equal('');
      const refused = await app.request('/me/balance', { headers: bearer(user.token) });
      expect(refused.status).to.equal(401);
      expect(refused.headers.get('www-authenticate')).to.equal('Bearer error="invalid_token"');
      expect(await reasonIn(refused)).to.equal('invalid-token');
      // Only that token: the person's next token works, and revoking again changes nothing.
      const fresh = await delegatedToken(app, machine, user.externalUserRef);
      expect(await status('/me/balance', fresh.token)).to.equal(200);
      expect((await revoke(user.token)).status).to.equal(200);
    });

    it('when a tenant revokes its own machine token, then that token stops working and a new one works', async () => {
      const mine = await machineToken(app, tenant);
      expect((await revoke(mine)).status).to.equal(200);
      expect(await status('/users', mine)).to.equal(401);
      expect(await status('/users', await machineToken(app, tenant))).to.equal(200);
    });

    it('when the client revokes another tenant’s token, then 200 and the token keeps working', async () => {
      const otherMachine = await machineToken(app, other);
      const otherUser = await delegatedToken(app, otherMachine);
      expect((await revoke(otherUser.token)).status).to.equal(200);
      expect((await revoke(otherMachine)).status).to.equal(200);
      expect(await status('/me/balance', otherUser.token)).to.equal(200);
      expect(await status('/users', otherMachine)).to.equal(200);
    });

    it('when the token is unknown, forged or garbage, then 200 all the same', async () => {
      const foreign = await generateKeyPair('ES256');
      const forged = await new SignJWT({ sub: 'usr_x', tid: tenant.tenantId })
        .setProtectedHeader({ alg: 'ES256', kid: key.kid, typ: 'wallet-user+jwt' })
        .sign(foreign.privateKey);
      for (const token of ['not-a-token', forged, 'a.b.c', 'x'.repeat(9000)])
        expect((await revoke(token)).status, token.slice(0, 20)).to.equal(200);
    });

    it('when the client does not authenticate, then RFC 6749 errors: 401 invalid_client, 400 invalid_request', async () => {
      const user = await delegatedToken(app, machine);
      const attempts: Array<[RequestInit, number, string]> = [
        [formPost({ token: user.token }), 401, 'invalid_client'],
        [formPost({ token: user.token }, { authorization: basicAuth(tenant.clientId, 'pbcs_wrong') }), 401, 'invalid_client'],
        [formPost({ token: user.token, client_id: tenant.clientId, client_secret: 'pbcs_wrong' }), 401, 'invalid_client'],
        [formPost({ token: user.token }, { authorization: basicAuth(`cli_${unique()}`, tenant.clientSecret) }), 401, 'invalid_client'],
        [formPost({}, { authorization: basicAuth(tenant.clientId, tenant.clientSecret) }), 400, 'invalid_request'],
        [
          {
            method: 'POST',
            headers: { authorization: basicAuth(tenant.clientId, tenant.clientSecret), 'content-type': 'application/json' },
            body: '{}',
          },
          400,
          'invalid_request',
        ],
      ];
      for (const [init, expected, error] of attempts) {
        const res = await app.request('/oauth/revoke', init);
        expect(res.status).to.equal(expected);
        expect(((await res.json()) as { error: string }).error).to.equal(error);
        if (expected === 401) expect(res.headers.get('www-authenticate')).to.match(/^Basic /);
      }
      // None of these revoked anything.
      expect(await status('/me/balance', user.token)).to.equal(200);
    });

    it('when the client authenticates in the form body instead of Basic, then the revocation works too', async () => {
      const user = await delegatedToken(app, machine);
      const res = await app.request(
        '/oauth/revoke',
        formPost({ token: user.token, client_id: tenant.clientId, client_secret: tenant.clientSecret }),
      );
      expect(res.status).to.equal(200);
      expect(await status('/me', user.token)).to.equal(401);
    });
  });

  describe('POST /oauth/introspect', () => {
    const now = () => Math.floor(Date.now() / 1000);
    const sign = async (claims: Record<string, unknown>, signingKey?: CryptoKey) =>
      new SignJWT({ iss: ISSUER, aud: `${ISSUER}/wallet`, iat: now(), exp: now() + 600, jti: `j-${unique()}`, ...claims })
        .setProtectedHeader({ alg: 'ES256', kid: key.kid, typ: 'wallet-user+jwt' })
        .sign(signingKey ?? ((await importJWK(key.privateJwk, 'ES256')) as CryptoKey));

    it('when a live user token of the tenant is introspected, then active with its claims', async () => {
      const user = await delegatedToken(app, machine);
      const claims = decodeJwt(user.token);
      expect(await introspect(user.token)).to.deep.equal({
        active: true,
        sub: user.userId,
        tid: tenant.tenantId,
        client_id: tenant.clientId,
        token_type: 'Bearer',
        token_use: 'wallet-user',
        amr: ['tenant_delegated'],
        act: { sub: tenant.clientId },
        iat: claims.iat,
        exp: claims.exp,
        jti: claims.jti,
      });
      const pwd = await buildPasswordUser(app, machine);
      const res = await login(app, { clientId: tenant.clientId, email: pwd.email, password: pwd.password }, testAddress());
      const pwdToken = ((await res.json()) as { access_token: string }).access_token;
      const pwdLive = await introspect(pwdToken);
      expect(pwdLive).to.include({ active: true, sub: pwd.userId });
      expect(pwdLive.amr).to.deep.equal(['pwd']);
      expect(pwdLive).not.to.have.property('act');
    });

    it('when a live machine token of the tenant is introspected, then active, its subject the client, without amr', async () => {
      const live = await introspect(machine);
      expect(live).to.include({
        active: true,
        sub: tenant.clientId,
        tid: tenant.tenantId,
        client_id: tenant.clientId,
        token_use: 'wallet-machine',
      });
      expect(live).not.to.have.property('amr');
    });

    it('when the token is another tenant’s, revoked, expired, forged, tampered or garbage, then exactly { active: false }', async () => {
      const otherUser = await delegatedToken(app, await machineToken(app, other));
      const revoked = await delegatedToken(app, machine);
      await revoke(revoked.token);
      const live = await delegatedToken(app, machine);
      const genuine = { sub: live.userId, tid: tenant.tenantId, client_id: tenant.clientId, token_use: 'wallet-user', amr: ['pwd'] };
      expect(await introspect(await sign(genuine))).to.include({ active: true });
      const expired = await sign({ ...genuine, iat: now() - 1000, exp: now() - 60 });
      const forged = await sign(genuine, (await generateKeyPair('ES256')).privateKey);
      const tampered = `${live.token.split('.')[0]}.${Buffer.from(JSON.stringify({ ...decodeJwt(live.token), sub: otherUser.userId })).toString('base64url')}.${live.token.split('.')[2]}`;
      const cases: Record<string, string> = {
        'another tenant’s': otherUser.token,
        revoked: revoked.token,
        expired,
        forged,
        tampered,
        garbage: 'garbage',
        'too long to be a token': 'x'.repeat(9000),
      };
      const answers = new Set<string>();
      for (const [what, token] of Object.entries(cases)) {
        const res = await app.request(
          '/oauth/introspect',
          formPost({ token }, { authorization: basicAuth(tenant.clientId, tenant.clientSecret) }),
        );
        expect(res.status, what).to.equal(200);
        const text = await res.text();
        expect(JSON.parse(text), what).to.deep.equal({ active: false });
        answers.add(`${res.status} ${res.headers.get('content-type')} ${res.headers.get('cache-control')} ${text}`);
      }
      // Nothing in the answer tells one refusal from another.
      expect([...answers]).to.have.length(1);
      // The other tenant sees its own token as live: the answer depends on who asks.
      expect(await introspect(otherUser.token, other)).to.include({ active: true, sub: otherUser.userId });
    });

    it('when the client does not authenticate, or authenticates as another tenant with a wrong secret, then 401 invalid_client', async () => {
      const user = await delegatedToken(app, machine);
      for (const init of [
        formPost({ token: user.token }),
        formPost({ token: user.token }, { authorization: basicAuth(other.clientId, tenant.clientSecret) }),
        formPost({ token: user.token }, { authorization: 'Bearer ' + machine }),
      ]) {
        const res = await app.request('/oauth/introspect', init);
        expect(res.status).to.equal(401);
        expect(res.headers.get('www-authenticate')).to.match(/^Basic /);
        expect(await res.json()).to.have.property('error', 'invalid_client');
      }
      const missing = await app.request(
        '/oauth/introspect',
        formPost({}, { authorization: basicAuth(tenant.clientId, tenant.clientSecret) }),
      );
      expect(missing.status).to.equal(400);
      expect(await missing.json()).to.have.property('error', 'invalid_request');
    });
  });

  describe('POST /auth/logout', () => {
    it('when a wallet app signs its holder out, then 204 and that token is refused; the holder’s other tokens still work', async () => {
      const pwd = await buildPasswordUser(app, machine);
      const signIn = async () =>
        (
          (await (await login(app, { clientId: tenant.clientId, email: pwd.email, password: pwd.password }, testAddress())).json()) as {
            access_token: string;
          }
        ).access_token;
      const phone = await signIn();
      const laptop = await signIn();
      const res = await app.request('/auth/logout', { method: 'POST', headers: bearer(phone) });
      expect(res.status).to.equal(204);
      expect(await res.text()).to.equal('');
      expect(await status('/me', phone)).to.equal(401);
      expect(await introspect(phone)).to.deep.equal({ active: false });
      expect(await status('/me', laptop)).to.equal(200);
      // Signing out twice: the token is no longer valid.
      expect((await app.request('/auth/logout', { method: 'POST', headers: bearer(phone) })).status).to.equal(401);
    });

    it('when a machine token or no token calls it, then 401 not-a-wallet-user or invalid-token, and nothing is revoked', async () => {
      const byMachine = await app.request('/auth/logout', { method: 'POST', headers: bearer(machine) });
      expect(byMachine.status).to.equal(401);
      expect(await reasonIn(byMachine)).to.equal('not-a-wallet-user');
      expect(await status('/users', machine)).to.equal(200);
      const anonymous = await app.request('/auth/logout', { method: 'POST' });
      expect(anonymous.status).to.equal(401);
      expect(await reasonIn(anonymous)).to.equal('invalid-token');
    });
  });
});

describe('OAuth metadata under WALLET_BASE_PATH and an issuer with a path', () => {
  let app: TestApp;
  let tenant: TestTenant;
  const issuer = 'https://auth.example.com/pbw';
  before(async () => {
    app = await startTestApp({ env: { WALLET_BASE_PATH: '/wallet', TOKEN_ISSUER: issuer } });
    tenant = await buildTenant(app.service);
  });
  after(() => app.stop());

  it('when the wallet has a base path, then the endpoints carry it, the JWKS stays at the root, and a client discovers them', async () => {
    const meta = (await (await app.request('/.well-known/oauth-authorization-server')).json()) as Record<string, string>;
    expect(meta).to.include({
      issuer,
      token_endpoint: `${issuer}/wallet/oauth/token`,
      revocation_endpoint: `${issuer}/wallet/oauth/revoke`,
      introspection_endpoint: `${issuer}/wallet/oauth/introspect`,
      jwks_uri: `${issuer}/.well-known/jwks.json`,
    });
    // RFC 8414 §3.1: for an issuer with a path, clients look under the well-known path followed by it.
    expect((await app.request('/.well-known/oauth-authorization-server/pbw')).status).to.equal(200);
    // A proxy at https://auth.example.com/pbw forwards to the service's root.
    const customFetch = (url: string, init: client.CustomFetchOptions) => {
      const u = new URL(url);
      const path = u.pathname.startsWith('/.well-known/') ? u.pathname : u.pathname.replace(/^\/pbw/, '');
      return fetch(`${app.url}${path}`, init as RequestInit);
    };
    const config = await client.discovery(new URL(issuer), tenant.clientId, undefined, client.ClientSecretBasic(tenant.clientSecret), {
      algorithm: 'oauth2',
      [client.customFetch]: customFetch,
    });
    const tokens = await client.clientCredentialsGrant(config);
    expect(decodeJwt(tokens.access_token).iss).to.equal(issuer);
    expect(await client.tokenIntrospection(config, tokens.access_token)).to.include({ active: true });
    await client.tokenRevocation(config, tokens.access_token);
    expect((await app.request('/wallet/users', { headers: bearer(tokens.access_token) })).status).to.equal(401);
  });
});
