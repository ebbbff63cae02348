import { expect } from 'chai';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';
import { silentLog, startTestApp, testConfig, type TestApp } from '../support/app.js';
import { expectResponseMatchesSpec } from '../support/openapi.js';
import { basicAuth, buildTenant, formPost, machineToken, type TestTenant } from '../support/wallet-builders.js';
import { openService } from '../../src/bootstrap/service.js';
import type { TenantDirectory } from '../../src/domain/identity/tenant-directory.port.js';

/** The OAuth endpoints, with their operation ids in the published files. */
const ENDPOINTS = [
  { path: '/oauth/token', operationId: 'issueMachineToken' },
  { path: '/oauth/revoke', operationId: 'revokeToken' },
  { path: '/oauth/introspect', operationId: 'introspectToken' },
] as const;

type OAuthError = { error: string; error_description: string };

/** An answer an OAuth client can parse: RFC 6749 JSON, not problem+json, not cached. */
async function oauthErrorOf(res: Response, operationId: string): Promise<OAuthError> {
  expect(res.headers.get('content-type')).to.match(/^application\/json/);
  expect(res.headers.get('cache-control')).to.equal('no-store');
  const body = await expectResponseMatchesSpec<OAuthError & { reason?: unknown }>(operationId, res);
  expect(Object.keys(body).sort()).to.deep.equal(['error', 'error_description']);
  expect(body.error_description).to.be.a('string').and.not.equal('');
  return body;
}

let lastOctet = 0;
/** An IPv4 client address of its own for each use (IPv6 addresses count per /56). */
const address = (): string => {
  lastOctet += 1;
  return `10.${(Date.now() >> 8) & 255}.${(lastOctet >> 8) & 255}.${lastOctet & 255}`;
};

describe('OAuth endpoints answer every error as RFC 6749 JSON', () => {
  describe('limits and request bodies', () => {
    let app: TestApp;
    let tenant: TestTenant;
    let live: string;
    before(async () => {
      app = await startTestApp({
        env: { RATE_LIMITS: 'on', RATE_LIMIT_TOKEN: '4/60', RATE_LIMIT_AUTH_FAILURES: '2/60', TRUST_PROXY: '1' },
      });
      tenant = await buildTenant(app.service);
      live = await machineToken(app, tenant);
    });
    after(() => app.stop());

    const fieldsOf = (path: string): Record<string, string> =>
      path === '/oauth/token' ? { grant_type: 'client_credentials' } : { token: live };

    for (const { path, operationId } of ENDPOINTS) {
      it(`when a client goes over the request-rate limit of ${path}, then 429 temporarily_unavailable with Retry-After`, async () => {
        const from = address();
        const send = () =>
          app.request(
            path,
            formPost(fieldsOf(path), { authorization: basicAuth(tenant.clientId, tenant.clientSecret), 'x-forwarded-for': from }),
          );
        for (let i = 0; i < 4; i += 1) expect((await send()).status).to.equal(200);
        const refused = await send();
        expect(refused.status).to.equal(429);
        expect(refused.headers.get('retry-after')).to.match(/^\d+$/);
        const body = await oauthErrorOf(refused, operationId);
        expect(body.error).to.equal('temporarily_unavailable');
        expect(body.error_description).to.match(/^Too many requests/);
      });

      it(`when an address fails client authentication past the limit at ${path}, then 429 temporarily_unavailable with Retry-After`, async () => {
        const from = address();
        const send = (secret: string) =>
          app.request(path, formPost(fieldsOf(path), { authorization: basicAuth(tenant.clientId, secret), 'x-forwarded-for': from }));
        for (let i = 0; i < 2; i += 1) {
          const res = await send(`wrong-${i}`);
          expect(res.status).to.equal(401);
          expect((await oauthErrorOf(res, operationId)).error).to.equal('invalid_client');
        }
        const refused = await send(tenant.clientSecret);
        expect(refused.status).to.equal(429);
        expect(Number(refused.headers.get('retry-after'))).to.be.within(1, 60);
        const body = await oauthErrorOf(refused, operationId);
        expect(body.error).to.equal('temporarily_unavailable');
        expect(body.error_description).to.match(/failed authentications/);
      });

      it(`when the body of ${path} is too large, not a form, in another charset or badly compressed, then 400 invalid_request`, async () => {
        const auth = { authorization: basicAuth(tenant.clientId, tenant.clientSecret) };
        const good = new URLSearchParams(fieldsOf(path)).toString();
        const cases: Array<[Record<string, string>, string | Buffer]> = [
          [{ 'content-type': 'application/x-www-form-urlencoded' }, `token=x&pad=${'a'.repeat(17 * 1024)}`],
          [{ 'content-type': 'application/json' }, '{"token":"x"}'],
          [{ 'content-type': 'application/x-www-form-urlencoded; charset=koi8-r' }, 'token=x'],
          // body-parser reads ISO-8859-1 forms; the service takes UTF-8 only, even for a form that is otherwise right.
          [{ 'content-type': 'application/x-www-form-urlencoded; charset=iso-8859-1' }, good],
          [{ 'content-type': 'application/x-www-form-urlencoded; charset="ISO-8859-1"' }, good],
          [{ 'content-type': 'Application/X-WWW-Form-Urlencoded;  Charset=latin1' }, good],
          [{ 'content-type': 'application/x-www-form-urlencoded; charset=us-ascii' }, good],
          [{ 'content-type': 'application/x-www-form-urlencoded', 'content-encoding': 'gzip' }, Buffer.from('not gzip at all')],
          [{ 'content-type': 'application/x-www-form-urlencoded', 'content-encoding': 'br' }, gzipSync('token=x')],
        ];
        for (const [headers, body] of cases) {
          const res = await app.request(path, { method: 'POST', headers: { ...auth, ...headers, 'x-forwarded-for': address() }, body });
          expect(res.status, JSON.stringify(headers)).to.equal(400);
          expect((await oauthErrorOf(res, operationId)).error, JSON.stringify(headers)).to.equal('invalid_request');
        }
      });

      it(`when the form of ${path} says UTF-8 in any spelling, then it is read`, async () => {
        const auth = { authorization: basicAuth(tenant.clientId, tenant.clientSecret) };
        const body = new URLSearchParams(fieldsOf(path)).toString();
        for (const type of [
          'application/x-www-form-urlencoded; charset="UTF-8"',
          'application/x-www-form-urlencoded; Charset=utf-8; x=y',
        ]) {
          const res = await app.request(path, {
            method: 'POST',
            headers: { ...auth, 'content-type': type, 'x-forwarded-for': address() },
            body,
          });
          expect(res.status, type).to.equal(200);
        }
      });
    }
  });

  describe('faults of the service', () => {
    let fault: Error | null = null;
    let server: http.Server;
    let base: string;
    let close: () => Promise<void>;
    before(async () => {
      // The tenant directory fails while `fault` is set: the database out of reach, or a bug.
      const failing = new Proxy({} as TenantDirectory, {
        get: () => async () => {
          throw fault ?? new Error('no fault set');
        },
      });
      const service = await openService(testConfig({ PERSISTENCE: 'memory' }), silentLog, { ports: { tenants: failing } });
      server = http.createServer(service.app);
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      close = async () => {
        server.closeAllConnections();
        await new Promise<void>((resolve) => server.close(() => resolve()));
        await service.close();
      };
    });
    after(async () => close?.());

    for (const { path, operationId } of ENDPOINTS) {
      it(`when the database cannot be reached during ${path}, then 503 temporarily_unavailable with Retry-After; a fault is 500 server_error`, async () => {
        const send = () =>
          fetch(
            `${base}${path}`,
            formPost({ grant_type: 'client_credentials', token: 'x' }, { authorization: basicAuth('cli_someone', 'secret') }),
          );
        fault = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });
        const unavailable = await send();
        expect(unavailable.status).to.equal(503);
        expect(unavailable.headers.get('retry-after')).to.equal('1');
        expect((await oauthErrorOf(unavailable, operationId)).error).to.equal('temporarily_unavailable');

        fault = new Error('SELECT secret FROM somewhere failed');
        const failed = await send();
        expect(failed.status).to.equal(500);
        const body = await oauthErrorOf(failed, operationId);
        expect(body.error).to.equal('server_error');
        expect(body.error_description).not.to.include('SELECT');
      });
    }
  });
});
