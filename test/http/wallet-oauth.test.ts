import { expect } from 'chai';
import * as client from 'openid-client';
import { decodeJwt, decodeProtectedHeader } from 'jose';
import { startTestApp, type TestApp } from '../support/app.js';
import { expectResponseMatchesSpec, operation } from '../support/openapi.js';
import { effectiveResponses } from '../../src/adapters/http/openapi/responses.js';
import { basicAuth, bearer, buildTenant, formPost, type TestTenant } from '../support/wallet-builders.js';

describe('POST /oauth/token (client credentials)', () => {
  let app: TestApp;
  let tenant: TestTenant;
  before(async () => {
    app = await startTestApp();
    tenant = await buildTenant(app.service);
  });
  after(() => app.stop());

  const token = (fields: Record<string, string>, headers: Record<string, string> = {}) =>
    app.request('/oauth/token', formPost(fields, headers));
  const oauthError = async (res: Response): Promise<{ error: string; error_description: string }> => {
    expect(res.headers.get('content-type')).to.match(/^application\/json/);
    expect(res.headers.get('cache-control')).to.equal('no-store');
    return (await res.json()) as { error: string; error_description: string };
  };

  it('when the client authenticates with HTTP Basic, then a Bearer machine token with the contract’s claims, no-store', async () => {
    const res = await token({ grant_type: 'client_credentials' }, { authorization: basicAuth(tenant.clientId, tenant.clientSecret) });
    expect(res.status).to.equal(200);
    expect(res.headers.get('cache-control')).to.equal('no-store');
    const body = (await res.json()) as Record<string, unknown>;
    expect(Object.keys(body).sort()).to.deep.equal(['access_token', 'expires_in', 'token_type']);
    expect(body).to.include({ token_type: 'Bearer', expires_in: 3600 });
    const header = decodeProtectedHeader(body.access_token as string);
    expect(header).to.include({ alg: 'ES256', typ: 'at+jwt' });
    expect(header.kid).to.be.a('string');
    const claims = decodeJwt(body.access_token as string);
    expect(claims).to.include({ sub: tenant.clientId, tid: tenant.tenantId, iss: 'https://pbw.local', aud: 'https://pbw.local/wallet' });
    expect(claims.exp! - claims.iat!).to.equal(3600);
    expect(claims.jti).to.be.a('string');
    expect(claims).not.to.have.property('amr');
  });

  it('when the client sends client_id and client_secret in the form instead, then it gets a token too', async () => {
    const res = await token({ grant_type: 'client_credentials', client_id: tenant.clientId, client_secret: tenant.clientSecret });
    expect(res.status).to.equal(200);
    const { access_token } = (await res.json()) as { access_token: string };
    expect((await app.request('/users', { headers: bearer(access_token) })).status).to.equal(200);
  });

  it('when the secret is wrong, the client unknown or no credentials are sent, then 401 invalid_client with WWW-Authenticate: Basic', async () => {
    const attempts = [
      token({ grant_type: 'client_credentials' }, { authorization: basicAuth(tenant.clientId, `${tenant.clientSecret}x`) }),
      token({ grant_type: 'client_credentials', client_id: tenant.clientId, client_secret: 'pbcs_00' }),
      token({ grant_type: 'client_credentials', client_id: 'cli_nobody', client_secret: tenant.clientSecret }),
      token({ grant_type: 'client_credentials', client_id: tenant.clientId }),
      token({ grant_type: 'client_credentials' }),
      token({ grant_type: 'client_credentials' }, { authorization: 'Basic !!!' }),
      token({ grant_type: 'client_credentials' }, { authorization: `Bearer ${tenant.clientSecret}` }),
    ];
    for (const res of await Promise.all(attempts)) {
      expect(res.status).to.equal(401);
      expect(res.headers.get('www-authenticate')).to.match(/^Basic/);
      expect((await oauthError(res)).error).to.equal('invalid_client');
    }
  });

  it('when the grant type is another or missing, then 400 unsupported_grant_type / invalid_request', async () => {
    const auth = { authorization: basicAuth(tenant.clientId, tenant.clientSecret) };
    const other = await token({ grant_type: 'password', username: 'a', password: 'b' }, auth);
    expect(other.status).to.equal(400);
    expect((await oauthError(other)).error).to.equal('unsupported_grant_type');
    const missing = await token({}, auth);
    expect(missing.status).to.equal(400);
    expect((await oauthError(missing)).error).to.equal('invalid_request');
  });

  it('when a parameter is repeated, two authentication methods are used, or the body is JSON, then 400 invalid_request', async () => {
    const auth = { authorization: basicAuth(tenant.clientId, tenant.clientSecret) };
    const repeated = await app.request('/oauth/token', {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', ...auth },
      body: 'grant_type=client_credentials&grant_type=client_credentials',
    });
    expect((await oauthError(repeated)).error).to.equal('invalid_request');
    const both = await token({ grant_type: 'client_credentials', client_id: tenant.clientId, client_secret: tenant.clientSecret }, auth);
    expect(both.status).to.equal(400);
    expect((await oauthError(both)).error).to.equal('invalid_request');
    const json = await app.request('/oauth/token', {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...auth },
      body: JSON.stringify({ grant_type: 'client_credentials' }),
    });
    expect(json.status).to.equal(400);
    expect((await oauthError(json)).error).to.equal('invalid_request');
  });

  it('when the form is over 16 KiB, has too many parameters or is not a form, then 400 invalid_request whose description says which, as the file documents', async () => {
    const auth = { authorization: basicAuth(tenant.clientId, tenant.clientSecret) };
    const cases: Array<[string, string, RegExp]> = [
      ['application/x-www-form-urlencoded', `grant_type=client_credentials&scope=${'a'.repeat(17 * 1024)}`, /larger than 16 KiB/],
      [
        'application/x-www-form-urlencoded',
        `grant_type=client_credentials&${Array.from({ length: 60 }, (_, i) => `p${i}=1`).join('&')}`,
        /too many parameters/,
      ],
      ['text/plain', 'grant_type=client_credentials', /must be application\/x-www-form-urlencoded/],
    ];
    for (const [type, body, description] of cases) {
      const res = await app.request('/oauth/token', { method: 'POST', headers: { 'content-type': type, ...auth }, body });
      expect(res.status, type).to.equal(400);
      const error = await expectResponseMatchesSpec<{ error: string; error_description: string }>('issueMachineToken', res);
      expect(error.error).to.equal('invalid_request');
      expect(error.error_description).to.match(description);
    }
    // What the file says the endpoint answers: its own RFC 6749 400 and 401, no 413 or 415.
    expect(Object.keys(effectiveResponses(operation('issueMachineToken')))).not.to.include('415');
    expect(Object.keys(effectiveResponses(operation('issueMachineToken')))).not.to.include('413');
  });

  it('when the client secret is stored, then only its SHA-256 is kept, never the secret', async () => {
    const knex = app.service.db!.knex;
    const row = await knex('tenants').where({ id: tenant.tenantId }).first();
    expect(JSON.stringify(row)).not.to.include(tenant.clientSecret.slice(5));
    expect(row.client_secret_hash).to.match(/^[0-9a-f]{64}$/);
    expect(tenant.clientSecret).to.match(/^pbcs_[0-9a-f]{64}$/);
  });

  it('when openid-client 6 asks for client credentials (Basic and post), then it obtains a working machine token unchanged', async () => {
    const server = { issuer: 'https://pbw.local', token_endpoint: `${app.url}/oauth/token` };
    for (const auth of [client.ClientSecretBasic(tenant.clientSecret), client.ClientSecretPost(tenant.clientSecret)]) {
      const config = new client.Configuration(server, tenant.clientId, undefined, auth);
      client.allowInsecureRequests(config);
      const tokens = await client.clientCredentialsGrant(config);
      expect(tokens.token_type).to.equal('bearer');
      expect(tokens.expiresIn()).to.be.within(3590, 3600);
      const me = await app.request('/users?limit=1', { headers: bearer(tokens.access_token) });
      expect(me.status).to.equal(200);
    }
    const wrong = new client.Configuration(server, tenant.clientId, 'pbcs_wrong');
    client.allowInsecureRequests(wrong);
    try {
      await client.clientCredentialsGrant(wrong);
      expect.fail('a wrong secret must be refused');
    } catch (err) {
      expect(err).to.include({ status: 401 });
    }
  });
});
