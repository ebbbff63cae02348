import { expect } from 'chai';
import { decodeJwt } from 'jose';
import * as oauth from 'oauth4webapi';
import { startTestApp, type TestApp } from '../support/app.js';
import { unique } from '../support/builders.js';
import { basicAuth, bearer, buildTenant, delegatedToken, formPost, machineToken, type TestTenant } from '../support/wallet-builders.js';
import {
  discover,
  ISSUER,
  JWT_BEARER,
  JWT_TOKEN_TYPE,
  registerKeys,
  renamed,
  signingKey,
  tenantJwt,
  toApp,
  TOKEN_EXCHANGE_GRANT,
  type SigningKey,
} from '../support/oauth-clients.js';

const ACCESS_TOKEN_TYPE = 'urn:ietf:params:oauth:token-type:access_token';

describe('Token exchange over HTTP (RFC 8693): a backend trades a user assertion it signed for a user token', () => {
  let app: TestApp;
  let tenant: TestTenant;
  let keyless: TestTenant;
  let pkj: TestTenant;
  let key: SigningKey;
  before(async () => {
    app = await startTestApp();
    key = await signingKey('ES256');
    tenant = await buildTenant(app.service);
    // A tenant authenticating with its secret may still sign subject tokens with its registered keys.
    await registerKeys(app.service, tenant, [key], { method: 'client_secret' });
    pkj = await buildTenant(app.service);
    await registerKeys(app.service, pkj, [key]);
    keyless = await buildTenant(app.service);
  });
  after(() => app.stop());

  /** A subject token: `sub` the person, `aud` the issuer. */
  const subjectToken = (ref: string, claims: Record<string, unknown> = {}, who: TestTenant = tenant): Promise<string> =>
    tenantJwt(key, who.clientId, { sub: ref, aud: ISSUER, ...claims });
  const exchange = (fields: Record<string, string>, who: TestTenant = tenant) =>
    app.request(
      '/oauth/token',
      formPost({ grant_type: TOKEN_EXCHANGE_GRANT, ...fields }, { authorization: basicAuth(who.clientId, who.clientSecret) }),
    );
  const oauthError = async (res: Response, status = 400): Promise<string> => {
    expect(res.status).to.equal(status);
    expect(res.headers.get('cache-control')).to.equal('no-store');
    return ((await res.json()) as { error: string }).error;
  };

  it('when oauth4webapi sends the generic token-exchange grant, then the delegated user token for that person, which reads /me/balance', async () => {
    const as = await discover(app);
    expect(as.grant_types_supported).to.include(TOKEN_EXCHANGE_GRANT);
    const client: oauth.Client = { client_id: tenant.clientId };
    const ref = `ref-${unique()}`;
    const res = await oauth.genericTokenEndpointRequest(
      as,
      client,
      oauth.ClientSecretBasic(tenant.clientSecret),
      TOKEN_EXCHANGE_GRANT,
      { subject_token: await subjectToken(ref), subject_token_type: JWT_TOKEN_TYPE },
      toApp(app),
    );
    const tokens = await oauth.processGenericTokenEndpointResponse(as, client, res);
    expect(tokens).to.include({ token_type: 'bearer', issued_token_type: ACCESS_TOKEN_TYPE });
    const claims = decodeJwt(tokens.access_token);
    expect(claims.amr).to.include('tenant_delegated');
    expect(claims.act).to.deep.equal({ sub: tenant.clientId });
    const balance = await app.request('/me/balance', { headers: bearer(tokens.access_token) });
    expect(balance.status).to.equal(200);
    // The same person /auth/delegated-token finds for that reference.
    const viaDelegation = await delegatedToken(app, await machineToken(app, tenant), ref);
    expect(viaDelegation.userId).to.equal(claims.sub);
  });

  it('when a private_key_jwt client exchanges with a DPoP proof, then a DPoP-bound user token that reads /me/balance with its proof', async () => {
    const as = await discover(app);
    const client: oauth.Client = { client_id: pkj.clientId };
    const DPoP = oauth.DPoP(client, { privateKey: key.privateKey, publicKey: key.publicKey });
    const res = await oauth.genericTokenEndpointRequest(
      as,
      client,
      oauth.PrivateKeyJwt({ key: key.privateKey, kid: key.kid }),
      TOKEN_EXCHANGE_GRANT,
      { subject_token: await subjectToken(`ref-${unique()}`, {}, pkj), subject_token_type: JWT_TOKEN_TYPE },
      { DPoP, ...toApp(app) },
    );
    const tokens = await oauth.processGenericTokenEndpointResponse(as, client, res);
    expect(tokens).to.include({ token_type: 'dpop', issued_token_type: ACCESS_TOKEN_TYPE });
    const balance = await oauth.protectedResourceRequest(tokens.access_token, 'GET', new URL(`${ISSUER}/me/balance`), new Headers(), null, {
      DPoP,
      ...toApp(app),
    });
    expect(balance.status).to.equal(200);
  });

  it('when the subject token is signed with a registered Ed25519 key as EdDSA or as Ed25519, then a user token either way', async () => {
    const ed = await signingKey('EdDSA');
    const signer = await buildTenant(app.service);
    await registerKeys(app.service, signer, [ed], { method: 'client_secret' });
    for (const alg of ['EdDSA', 'Ed25519'] as const) {
      const jwt = await tenantJwt(renamed(ed, alg), signer.clientId, { sub: `ref-${unique()}`, aud: ISSUER });
      const res = await exchange({ subject_token: jwt, subject_token_type: JWT_TOKEN_TYPE }, signer);
      expect(res.status, alg).to.equal(200);
      expect(((await res.json()) as { issued_token_type: string }).issued_token_type).to.equal(ACCESS_TOKEN_TYPE);
    }
  });

  it('when subject_token or its type is missing, or the type is another, then 400 invalid_request', async () => {
    const jwt = await subjectToken(`ref-${unique()}`);
    expect(await oauthError(await exchange({ subject_token_type: JWT_TOKEN_TYPE }))).to.equal('invalid_request');
    expect(await oauthError(await exchange({ subject_token: jwt }))).to.equal('invalid_request');
    expect(await oauthError(await exchange({ subject_token: jwt, subject_token_type: ACCESS_TOKEN_TYPE }))).to.equal('invalid_request');
  });

  it('when the subject token fails a check or is replayed, then 400 invalid_grant', async () => {
    const stranger = await signingKey();
    const nowS = Math.floor(Date.now() / 1000);
    const bad = [
      await subjectToken(`ref-${unique()}`, { aud: `${ISSUER}/oauth/token` }),
      await subjectToken(`ref-${unique()}`, { aud: 'https://elsewhere.example' }),
      await subjectToken(`ref-${unique()}`, { exp: nowS + 600 }),
      await subjectToken(`ref-${unique()}`, { exp: nowS - 60 }),
      await subjectToken(`ref-${unique()}`, { iss: pkj.clientId }),
      await subjectToken('not a valid ref!'),
      await tenantJwt(stranger, tenant.clientId, { sub: `ref-${unique()}` }),
      'not-a-jwt',
    ];
    for (const jwt of bad) {
      expect(await oauthError(await exchange({ subject_token: jwt, subject_token_type: JWT_TOKEN_TYPE }))).to.equal('invalid_grant');
    }
    const once = await subjectToken(`ref-${unique()}`);
    expect((await exchange({ subject_token: once, subject_token_type: JWT_TOKEN_TYPE })).status).to.equal(200);
    expect(await oauthError(await exchange({ subject_token: once, subject_token_type: JWT_TOKEN_TYPE }))).to.equal('invalid_grant');
  });

  it('when one JWT is both the client assertion and the subject token of a request, then 400 invalid_grant and no user token', async () => {
    // iss = sub = the client id, aud = the issuer: the claims of a client assertion, and of a subject token for a person whose ref is the client id.
    const both = await tenantJwt(key, pkj.clientId);
    const res = await app.request(
      '/oauth/token',
      formPost({
        grant_type: TOKEN_EXCHANGE_GRANT,
        client_assertion_type: JWT_BEARER,
        client_assertion: both,
        subject_token: both,
        subject_token_type: JWT_TOKEN_TYPE,
      }),
    );
    expect(await oauthError(res)).to.equal('invalid_grant');
    // A client assertion already used cannot be a subject token later either.
    const assertion = await tenantJwt(key, pkj.clientId);
    expect(
      (
        await app.request(
          '/oauth/token',
          formPost({ grant_type: 'client_credentials', client_assertion_type: JWT_BEARER, client_assertion: assertion }),
        )
      ).status,
    ).to.equal(200);
    const later = await app.request(
      '/oauth/token',
      formPost({
        grant_type: TOKEN_EXCHANGE_GRANT,
        client_assertion_type: JWT_BEARER,
        client_assertion: await tenantJwt(key, pkj.clientId),
        subject_token: assertion,
        subject_token_type: JWT_TOKEN_TYPE,
      }),
    );
    expect(await oauthError(later)).to.equal('invalid_grant');
  });

  it('when the subject token is typed as another kind of JWT, or its aud array names someone else too, then 400 invalid_grant', async () => {
    for (const typ of ['client-authentication+jwt', 'dpop+jwt', 'at+jwt', 'application/client-authentication+jwt']) {
      const jwt = await tenantJwt(key, tenant.clientId, { sub: `ref-${unique()}` }, { typ });
      expect(await oauthError(await exchange({ subject_token: jwt, subject_token_type: JWT_TOKEN_TYPE })), typ).to.equal('invalid_grant');
    }
    const shared = await subjectToken(`ref-${unique()}`, { aud: [ISSUER, 'https://elsewhere.example'] });
    expect(await oauthError(await exchange({ subject_token: shared, subject_token_type: JWT_TOKEN_TYPE }))).to.equal('invalid_grant');
    // Typed JWT, or an array of the issuer alone, is a subject token.
    const typed = await tenantJwt(key, tenant.clientId, { sub: `ref-${unique()}`, aud: [ISSUER] }, { typ: 'JWT' });
    expect((await exchange({ subject_token: typed, subject_token_type: JWT_TOKEN_TYPE })).status).to.equal(200);
  });

  it('when audience or resource names what the user token is not for, then 400 invalid_target; the tokens’ own audience gets the token', async () => {
    const served = `${ISSUER}/wallet`;
    const asks: Array<Record<string, string> | string> = [
      { audience: 'https://elsewhere.example' },
      { resource: 'https://elsewhere.example/api' },
      { resource: ISSUER },
      { audience: served, resource: 'https://elsewhere.example/api' },
      // A repeated audience, one of them foreign.
      `audience=${encodeURIComponent(served)}&audience=${encodeURIComponent('https://elsewhere.example')}`,
    ];
    for (const ask of asks) {
      const fields = { subject_token: await subjectToken(`ref-${unique()}`), subject_token_type: JWT_TOKEN_TYPE };
      const res =
        typeof ask === 'string'
          ? await app.request('/oauth/token', {
              method: 'POST',
              headers: {
                'content-type': 'application/x-www-form-urlencoded',
                authorization: basicAuth(tenant.clientId, tenant.clientSecret),
              },
              body: `${new URLSearchParams({ grant_type: TOKEN_EXCHANGE_GRANT, ...fields }).toString()}&${ask}`,
            })
          : await exchange({ ...fields, ...ask });
      expect(await oauthError(res), JSON.stringify(ask)).to.equal('invalid_target');
    }
    const ok = await exchange({
      subject_token: await subjectToken(`ref-${unique()}`),
      subject_token_type: JWT_TOKEN_TYPE,
      audience: served,
      resource: served,
      requested_token_type: ACCESS_TOKEN_TYPE,
    });
    expect(ok.status).to.equal(200);
    expect(decodeJwt(((await ok.json()) as { access_token: string }).access_token).aud).to.equal(served);
  });

  it('when an actor_token or a requested_token_type other than an access token is sent, then 400 invalid_request, and the subject token is not spent', async () => {
    const jwt = await subjectToken(`ref-${unique()}`);
    const actor = await tenantJwt(key, tenant.clientId, { sub: `ref-${unique()}` });
    const refused = [
      { actor_token: actor, actor_token_type: JWT_TOKEN_TYPE },
      { actor_token_type: JWT_TOKEN_TYPE },
      { requested_token_type: JWT_TOKEN_TYPE },
      { requested_token_type: 'urn:ietf:params:oauth:token-type:refresh_token' },
      { requested_token_type: 'urn:ietf:params:oauth:token-type:id_token' },
    ];
    for (const extra of refused) {
      const res = await exchange({ subject_token: jwt, subject_token_type: JWT_TOKEN_TYPE, ...extra });
      expect(await oauthError(res), JSON.stringify(extra)).to.equal('invalid_request');
    }
    expect((await exchange({ subject_token: jwt, subject_token_type: JWT_TOKEN_TYPE })).status).to.equal(200);
  });

  it('when the tenant has no registered keys, or the person is disabled, then 400 invalid_grant', async () => {
    const jwt = await subjectToken(`ref-${unique()}`, {}, keyless);
    expect(await oauthError(await exchange({ subject_token: jwt, subject_token_type: JWT_TOKEN_TYPE }, keyless))).to.equal('invalid_grant');
    const person = await delegatedToken(app, await machineToken(app, tenant));
    await app.service.core.admin.setWalletUserDisabled.execute(person.userId, true);
    const forDisabled = await subjectToken(person.externalUserRef);
    expect(await oauthError(await exchange({ subject_token: forDisabled, subject_token_type: JWT_TOKEN_TYPE }))).to.equal('invalid_grant');
  });

  it('when the client does not authenticate, then 401 invalid_client; another grant type stays unsupported_grant_type', async () => {
    const jwt = await subjectToken(`ref-${unique()}`);
    const res = await app.request(
      '/oauth/token',
      formPost({ grant_type: TOKEN_EXCHANGE_GRANT, subject_token: jwt, subject_token_type: JWT_TOKEN_TYPE }),
    );
    expect(await oauthError(res, 401)).to.equal('invalid_client');
    const assertion = await tenantJwt(key, tenant.clientId);
    const wrongMethod = await app.request(
      '/oauth/token',
      formPost({
        grant_type: TOKEN_EXCHANGE_GRANT,
        client_assertion_type: JWT_BEARER,
        client_assertion: assertion,
        subject_token: jwt,
        subject_token_type: JWT_TOKEN_TYPE,
      }),
    );
    expect(await oauthError(wrongMethod, 401)).to.equal('invalid_client');
    const other = await app.request(
      '/oauth/token',
      formPost(
        { grant_type: 'urn:ietf:params:oauth:grant-type:jwt-bearer', assertion: jwt },
        { authorization: basicAuth(tenant.clientId, tenant.clientSecret) },
      ),
    );
    expect(await oauthError(other)).to.equal('unsupported_grant_type');
  });
});
