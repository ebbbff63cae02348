import { createHash, randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { expect } from 'chai';
import { decodeJwt, SignJWT } from 'jose';
import * as oauth from 'oauth4webapi';
import { startTestApp, type TestApp } from '../support/app.js';
import { testRedisUrl, uniqueRedisPrefix } from '../support/redis.js';
import { basicAuth, bearer, buildTenant, formPost, type TestTenant } from '../support/wallet-builders.js';
import {
  discover,
  ISSUER,
  JWT_BEARER,
  registerKeys,
  renamed,
  signingKey,
  tenantJwt,
  toApp,
  type SigningKey,
} from '../support/oauth-clients.js';

describe('private_key_jwt over HTTP (RFC 7523): a backend authenticates with a signed client assertion', () => {
  let app: TestApp;
  let tenant: TestTenant;
  let secretTenant: TestTenant;
  let es: SigningKey;
  let ed: SigningKey;
  before(async () => {
    app = await startTestApp();
    [es, ed] = await Promise.all([signingKey('ES256'), signingKey('EdDSA')]);
    tenant = await buildTenant(app.service);
    await registerKeys(app.service, tenant, [es, ed]);
    secretTenant = await buildTenant(app.service);
    await registerKeys(app.service, secretTenant, [es], { method: 'client_secret' });
  });
  after(() => app.stop());

  const oauthError = async (res: Response, status: number): Promise<string> => {
    expect(res.status).to.equal(status);
    expect(res.headers.get('content-type')).to.match(/^application\/json/);
    const body = (await res.json()) as { error: string; error_description: string };
    expect(body.error_description).to.be.a('string');
    if (status === 401) expect(res.headers.get('www-authenticate')).to.match(/^Basic/);
    return body.error;
  };
  const withAssertion = (assertion: string, fields: Record<string, string> = {}) => ({
    client_assertion_type: JWT_BEARER,
    client_assertion: assertion,
    ...fields,
  });
  const tokenRequest = (fields: Record<string, string>, headers: Record<string, string> = {}) =>
    app.request('/oauth/token', formPost({ grant_type: 'client_credentials', ...fields }, headers));

  it('when oauth4webapi discovers the issuer and sends a client credentials grant with PrivateKeyJwt, then a machine token that works', async () => {
    const as = await discover(app);
    expect(as.token_endpoint_auth_methods_supported).to.include('private_key_jwt');
    expect(as.token_endpoint_auth_signing_alg_values_supported).to.deep.equal(['ES256', 'RS256', 'EdDSA', 'Ed25519']);
    expect(as.revocation_endpoint_auth_methods_supported).to.include('private_key_jwt');
    expect(as.introspection_endpoint_auth_methods_supported).to.include('private_key_jwt');
    const client: oauth.Client = { client_id: tenant.clientId };
    for (const key of [es, ed]) {
      // oauth4webapi signs with the Ed25519 key as `Ed25519` (RFC 9864), the key being registered as `EdDSA`.
      const auth = oauth.PrivateKeyJwt({ key: key.privateKey, kid: key.kid });
      const res = await oauth.clientCredentialsGrantRequest(as, client, auth, {}, toApp(app));
      const tokens = await oauth.processClientCredentialsResponse(as, client, res);
      expect(tokens.token_type).to.equal('bearer');
      expect(decodeJwt(tokens.access_token)).to.include({ sub: tenant.clientId, tid: tenant.tenantId });
      expect((await app.request('/users', { headers: bearer(tokens.access_token) })).status).to.equal(200);
    }
  });

  it('when an Ed25519 key is registered as EdDSA, as Ed25519 or without alg, then an assertion signed as either gets a token', async () => {
    const registered = [await signingKey('EdDSA'), await signingKey('Ed25519'), renamed(await signingKey('EdDSA'), null)];
    const named = await buildTenant(app.service);
    await registerKeys(app.service, named, registered);
    for (const key of registered) {
      for (const alg of ['EdDSA', 'Ed25519'] as const) {
        const res = await tokenRequest(withAssertion(await tenantJwt(renamed(key, alg), named.clientId)));
        expect(res.status, `registered as ${String(key.publicJwk.alg)}, signed as ${alg}`).to.equal(200);
      }
    }
    // Without a kid, the tenant's one Ed25519 key (registered as EdDSA) is found by its type.
    const nowS = Math.floor(Date.now() / 1000);
    const noKid = await new SignJWT({ iss: tenant.clientId, sub: tenant.clientId, aud: ISSUER, exp: nowS + 60, jti: randomUUID() })
      .setProtectedHeader({ alg: 'Ed25519' })
      .sign(ed.privateKey);
    expect((await tokenRequest(withAssertion(noKid))).status).to.equal(200);
  });

  it('when a JWT names an algorithm of another key type than the registered key its kid picks, then 401 invalid_client', async () => {
    const crossed = [
      // An Ed25519 signature under the EC key's kid.
      await tenantJwt({ ...ed, alg: 'Ed25519', kid: es.kid }, tenant.clientId),
      await tenantJwt({ ...ed, alg: 'EdDSA', kid: es.kid }, tenant.clientId),
      // An ES256 signature under the Ed25519 key's kid.
      await tenantJwt({ ...es, kid: ed.kid }, tenant.clientId),
    ];
    for (const assertion of crossed) expect(await oauthError(await tokenRequest(withAssertion(assertion)), 401)).to.equal('invalid_client');
  });

  it('when the assertion names the token endpoint as aud and client_id is sent too, then a token', async () => {
    const res = await tokenRequest(
      withAssertion(await tenantJwt(es, tenant.clientId, { aud: `${ISSUER}/oauth/token` }), { client_id: tenant.clientId }),
    );
    expect(res.status).to.equal(200);
    expect(((await res.json()) as { token_type: string }).token_type).to.equal('Bearer');
  });

  it('when an assertion is presented a second time, then 401 invalid_client', async () => {
    const assertion = await tenantJwt(es, tenant.clientId);
    expect((await tokenRequest(withAssertion(assertion))).status).to.equal(200);
    expect(await oauthError(await tokenRequest(withAssertion(assertion)), 401)).to.equal('invalid_client');
  });

  it('when aud is another server, exp is more than 5 minutes ahead or passed, or the key is not registered, then 401 invalid_client', async () => {
    const stranger = await signingKey();
    const refused = [
      await tenantJwt(es, tenant.clientId, { aud: 'https://elsewhere.example' }),
      await tenantJwt(es, tenant.clientId, { aud: `${ISSUER}/oauth/revoke` }),
      await tenantJwt(es, tenant.clientId, { exp: Math.floor(Date.now() / 1000) + 600 }),
      await tenantJwt(es, tenant.clientId, { exp: Math.floor(Date.now() / 1000) - 60 }),
      await tenantJwt(stranger, tenant.clientId),
      await tenantJwt(es, tenant.clientId, { sub: 'someone-else' }),
    ];
    for (const assertion of refused) expect(await oauthError(await tokenRequest(withAssertion(assertion)), 401)).to.equal('invalid_client');
  });

  it('when the assertion is typed as another kind of JWT (dpop+jwt, at+jwt, …), then 401 invalid_client; untyped, JWT or client-authentication+jwt, a token', async () => {
    for (const typ of ['dpop+jwt', 'at+jwt', 'wallet-user+jwt', 'application/dpop+jwt', 'jwt-bearer']) {
      const res = await tokenRequest(withAssertion(await tenantJwt(es, tenant.clientId, {}, { typ })));
      expect(await oauthError(res, 401), typ).to.equal('invalid_client');
    }
    for (const typ of ['JWT', 'client-authentication+jwt', 'application/client-authentication+jwt']) {
      const res = await tokenRequest(withAssertion(await tenantJwt(es, tenant.clientId, {}, { typ })));
      expect(res.status, typ).to.equal(200);
    }
  });

  it('when aud is an array, then a token only if every member is the issuer or the token endpoint; one other member → 401 invalid_client', async () => {
    const endpoint = `${ISSUER}/oauth/token`;
    const ours = await tokenRequest(withAssertion(await tenantJwt(es, tenant.clientId, { aud: [ISSUER, endpoint] })));
    expect(ours.status).to.equal(200);
    for (const aud of [
      [ISSUER, 'https://elsewhere.example'],
      ['https://elsewhere.example', endpoint],
      [ISSUER, `${ISSUER}/oauth/revoke`],
      [],
    ]) {
      const res = await tokenRequest(withAssertion(await tenantJwt(es, tenant.clientId, { aud })));
      expect(await oauthError(res, 401), JSON.stringify(aud)).to.equal('invalid_client');
    }
  });

  it('when the tenant is set to private_key_jwt, then its secret is refused with 401 invalid_client; a client_secret tenant’s assertion too', async () => {
    expect(await oauthError(await tokenRequest({}, { authorization: basicAuth(tenant.clientId, tenant.clientSecret) }), 401)).to.equal(
      'invalid_client',
    );
    expect(await oauthError(await tokenRequest({ client_id: tenant.clientId, client_secret: tenant.clientSecret }), 401)).to.equal(
      'invalid_client',
    );
    expect(await oauthError(await tokenRequest(withAssertion(await tenantJwt(es, secretTenant.clientId))), 401)).to.equal('invalid_client');
    // The secret tenant keeps its secret.
    const ok = await tokenRequest({}, { authorization: basicAuth(secretTenant.clientId, secretTenant.clientSecret) });
    expect(ok.status).to.equal(200);
  });

  it('when two methods are mixed, half an assertion is sent, or the assertion type is another, then 400 invalid_request', async () => {
    const assertion = await tenantJwt(es, tenant.clientId);
    const mixed = [
      tokenRequest(withAssertion(assertion), { authorization: basicAuth(tenant.clientId, tenant.clientSecret) }),
      tokenRequest(withAssertion(assertion, { client_secret: tenant.clientSecret })),
      tokenRequest({ client_assertion: assertion }),
      tokenRequest({ client_assertion_type: JWT_BEARER }),
      tokenRequest({ client_assertion_type: 'urn:example:other', client_assertion: assertion }),
    ];
    for (const res of await Promise.all(mixed)) expect(await oauthError(res, 400)).to.equal('invalid_request');
  });

  it('when the client_id sent is not the assertion’s issuer, then 401 invalid_client', async () => {
    const res = await tokenRequest(withAssertion(await tenantJwt(es, tenant.clientId), { client_id: secretTenant.clientId }));
    expect(await oauthError(res, 401)).to.equal('invalid_client');
  });

  it('when revocation and introspection authenticate with assertions, then they work; a replayed one is 401 invalid_client', async () => {
    const as = await discover(app);
    const client: oauth.Client = { client_id: tenant.clientId };
    const auth = oauth.PrivateKeyJwt({ key: es.privateKey, kid: es.kid });
    const tokens = await oauth.processClientCredentialsResponse(
      as,
      client,
      await oauth.clientCredentialsGrantRequest(as, client, auth, {}, toApp(app)),
    );
    const introspected = await oauth.processIntrospectionResponse(
      as,
      client,
      await oauth.introspectionRequest(as, client, auth, tokens.access_token, toApp(app)),
    );
    expect(introspected).to.include({ active: true, sub: tenant.clientId });
    await oauth.processRevocationResponse(await oauth.revocationRequest(as, client, auth, tokens.access_token, toApp(app)));
    expect((await app.request('/users', { headers: bearer(tokens.access_token) })).status).to.equal(401);
    const assertion = await tenantJwt(es, tenant.clientId);
    expect((await app.request('/oauth/introspect', formPost(withAssertion(assertion, { token: tokens.access_token })))).status).to.equal(
      200,
    );
    const replay = await app.request('/oauth/revoke', formPost(withAssertion(assertion, { token: tokens.access_token })));
    expect(await oauthError(replay, 401)).to.equal('invalid_client');
  });
});

describe('one-time checks while the shared replay store (Redis) is out of reach', () => {
  let app: TestApp;
  let tenant: TestTenant;
  let key: SigningKey;
  before(async () => {
    // Nothing listens on port 1: every one-time check fails.
    app = await startTestApp({ env: { REDIS_URL: 'redis://127.0.0.1:1' } });
    key = await signingKey();
    tenant = await buildTenant(app.service);
    await registerKeys(app.service, tenant, [key]);
  });
  after(() => app.stop());

  it('when a client assertion cannot be checked for replay, then 503 temporarily_unavailable, never a token', async () => {
    const res = await app.request(
      '/oauth/token',
      formPost({
        grant_type: 'client_credentials',
        client_assertion_type: JWT_BEARER,
        client_assertion: await tenantJwt(key, tenant.clientId),
      }),
    );
    expect(res.status).to.equal(503);
    expect(((await res.json()) as { error: string }).error).to.equal('temporarily_unavailable');
  });
});

describe('one-time checks in a shared Redis, under REDIS_KEY_PREFIX', () => {
  let a: TestApp;
  let b: TestApp;
  let redis: Redis;
  let tenant: TestTenant;
  let key: SigningKey;
  const prefixA = uniqueRedisPrefix();
  const prefixB = uniqueRedisPrefix();
  before(async function () {
    const url = await testRedisUrl();
    if (url === null) this.skip();
    // Two deployments sharing one Redis (and here one database), each with its own prefix.
    a = await startTestApp({ env: { REDIS_URL: url, REDIS_KEY_PREFIX: prefixA } });
    b = await startTestApp({ env: { REDIS_URL: url, REDIS_KEY_PREFIX: prefixB } });
    redis = new Redis(url, { lazyConnect: true });
    await redis.connect();
    key = await signingKey();
    tenant = await buildTenant(a.service);
    await registerKeys(a.service, tenant, [key]);
  });
  after(async () => {
    redis?.disconnect();
    await a?.stop();
    await b?.stop();
  });

  const present = (app: TestApp, assertion: string) =>
    app.request(
      '/oauth/token',
      formPost({ grant_type: 'client_credentials', client_assertion_type: JWT_BEARER, client_assertion: assertion }),
    );

  it('when an assertion is accepted, then its jti is kept under the prefix, and another prefix keeps its own', async () => {
    const jti = randomUUID();
    const assertion = await tenantJwt(key, tenant.clientId, { jti });
    expect((await present(a, assertion)).status).to.equal(200);
    expect((await present(a, assertion)).status).to.equal(401);
    const id = createHash('sha256').update(`${tenant.tenantId}:${jti}`).digest('base64url');
    const keys = await redis.keys(`${prefixA}*`);
    expect(keys.some((k) => k.endsWith(id))).to.equal(true);
    expect(keys.every((k) => k.startsWith(`${prefixA}once:`))).to.equal(true);
    expect(await redis.keys(`pbw:once:*${id}`)).to.deep.equal([]);
    // The other deployment's ids are its own: the same jti is new to it.
    expect(await redis.keys(`${prefixB}*`)).to.deep.equal([]);
    expect((await present(b, assertion)).status).to.equal(200);
    expect((await redis.keys(`${prefixB}*`)).some((k) => k.endsWith(id))).to.equal(true);
  });
});
