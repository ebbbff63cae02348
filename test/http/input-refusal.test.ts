import { databaseRefusal } from '../../src/adapters/knex/pg-errors.js';
import { expect } from 'chai';
import express from 'express';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { errorHandler } from '../../src/adapters/http/errors.js';
import { requestId } from '../../src/adapters/http/request-context.js';
import { json, silentLog, startTestApp, type TestApp } from '../support/app.js';
import { buildAgent, unique, type TestAgent } from '../support/builders.js';
import { testDatabase } from '../support/database.js';
import { bearer, buildTenant, delegatedToken, formPost, machineToken, basicAuth, type TestTenant } from '../support/wallet-builders.js';

const NUL = '\u0000';

/** Status and parsed body of a response, whatever its type. */
const read = async (res: Response): Promise<{ status: number; body: Record<string, unknown> }> => {
  const text = await res.text();
  let body: Record<string, unknown>;
  try {
    body = JSON.parse(text) as Record<string, unknown>;
  } catch {
    body = { text };
  }
  return { status: res.status, body };
};

/** JSON with `levels` nested arrays around a number: about 2 bytes a level. */
const nested = (levels: number): string => `${'['.repeat(levels)}1${']'.repeat(levels)}`;

describe('input the database cannot hold, and input nested too deeply', () => {
  let app: TestApp;
  let agent: TestAgent;
  let tenant: TestTenant;
  let machine: string;
  let user: { token: string; userId: string };
  before(async () => {
    app = await startTestApp();
    agent = await buildAgent(app.service);
    tenant = await buildTenant(app.service);
    machine = await machineToken(app, tenant);
    user = await delegatedToken(app, machine);
  });
  after(() => app.stop());

  const key = (): Record<string, string> => ({ 'x-api-key': agent.apiKey });

  describe('a NUL character (U+0000)', () => {
    it('when it is in a path id, then 400 invalid-request, never 500', async () => {
      const cases: Array<[string, Record<string, string>]> = [
        ['/api/v1/orders/ord_%00', key()],
        ['/api/v1/quotes/qte_%00x', key()],
        [`/transactions/txn_%00`, bearer(machine)],
        [`/transactions/txn_%00`, bearer(user.token)],
        [`/users/usr_%00`, bearer(machine)],
      ];
      for (const [path, headers] of cases) {
        const { status, body } = await read(await app.request(path, { headers }));
        expect(status, path).to.equal(400);
        expect(body.reason, path).to.equal('invalid-request');
      }
    });

    it('when it is in the public autocomplete q or a query filter, then 400 invalid-request', async () => {
      const cases: Array<[string, Record<string, string>]> = [
        ['/api/v1/airport-transfer/locations?q=bk%00', {}],
        ['/api/v1/express-bus/cities?q=%00', {}],
        ['/api/v1/orders?status=%00', key()],
        ['/api/v1/express-bus/trips?fromCityId=cty_%00&toCityId=cty_x&date=2030-01-01', key()],
        [`/transactions?userId=usr_%00`, bearer(machine)],
        [`/transactions?cursor=%00`, bearer(machine)],
        [`/users?cursor=a%00`, bearer(machine)],
      ];
      for (const [path, headers] of cases) {
        const { status, body } = await read(await app.request(path, { headers }));
        expect(status, path).to.equal(400);
        expect(body.reason, path).to.equal('invalid-request');
      }
    });

    it('when it is in a JSON field, then 400 invalid-request naming the field', async () => {
      const cases: Array<[string, unknown, Record<string, string>, string]> = [
        ['/api/v1/orders', { quoteId: `qte_${NUL}`, contact: { name: 'A', email: 'a@example.com' } }, key(), 'quoteId'],
        ['/api/v1/orders', { quoteId: 'qte_x', contact: { name: `A${NUL}`, email: 'a@example.com' } }, key(), 'contact.name'],
        [
          '/api/v1/orders',
          { quoteId: 'qte_x', contact: { name: 'A', email: 'a@example.com' }, agentReference: `r${NUL}` },
          key(),
          'agentReference',
        ],
        ['/api/v1/express-bus/quotes', { tripId: `trp_${NUL}`, passengers: 1 }, key(), 'tripId'],
        [
          '/api/v1/airport-transfer/quotes',
          { fromLocationId: `loc_${NUL}`, toLocationId: 'loc_bkk', pickupAt: '2030-01-01T10:00:00Z', passengers: 1 },
          key(),
          'fromLocationId',
        ],
        ['/me/transfers', { toUserId: `usr_${NUL}`, amount: { amount: 1, currency: 'THB' } }, bearer(user.token), 'toUserId'],
        ['/me/payments', { amount: { amount: 1, currency: 'THB' }, reference: `ref${NUL}` }, bearer(user.token), 'reference'],
        [`/users/${user.userId}/top-ups`, { amount: { amount: 1, currency: 'THB' }, reference: `ref${NUL}` }, bearer(machine), 'reference'],
        ['/users', { externalUserRef: `ref-${unique()}`, email: `a${NUL}@example.com`, password: 'x9!Kq#2mZp' }, bearer(machine), 'email'],
        ['/auth/login', { clientId: `cli_${NUL}`, email: 'a@example.com', password: 'whatever-it-is' }, {}, 'clientId'],
        ['/auth/login', { clientId: tenant.clientId, email: `a${NUL}@example.com`, password: 'whatever-it-is' }, {}, 'email'],
        ['/auth/login', { clientId: tenant.clientId, email: 'a@example.com', password: `p${NUL}` }, {}, 'password'],
      ];
      for (const [path, payload, headers, field] of cases) {
        const { status, body } = await read(await app.request(path, json('POST', payload, headers)));
        expect(status, `${path} ${field}`).to.equal(400);
        expect(body.reason, `${path} ${field}`).to.equal('invalid-request');
        expect((body.errors as Array<{ path: string }>)[0]?.path, `${path} ${field}`).to.equal(field);
      }
    });

    it('when it is in client_id or client_secret on /oauth/token, then 401 invalid_client; in another field 400 invalid_request', async () => {
      const cases: Array<[RequestInit, number, string]> = [
        [formPost({ grant_type: 'client_credentials', client_id: `cli_${NUL}`, client_secret: 'x' }), 401, 'invalid_client'],
        [formPost({ grant_type: 'client_credentials', client_id: tenant.clientId, client_secret: `s${NUL}` }), 401, 'invalid_client'],
        [formPost({ grant_type: 'client_credentials' }, { authorization: basicAuth(`cli_${NUL}`, 'x') }), 401, 'invalid_client'],
        [
          formPost(
            { grant_type: 'client_credentials', scope: `a${NUL}` },
            { authorization: basicAuth(tenant.clientId, tenant.clientSecret) },
          ),
          400,
          'invalid_request',
        ],
      ];
      for (const [init, status, error] of cases) {
        const res = await read(await app.request('/oauth/token', init));
        expect(res.status).to.equal(status);
        expect(res.body.error).to.equal(error);
      }
    });
  });

  describe('a JSON body nested 8,000 levels deep (under 64 KiB)', () => {
    const body = nested(8000);
    before(() => expect(Buffer.byteLength(body)).to.be.below(64 * 1024));

    for (const withKey of [false, true]) {
      it(`when it is sent ${withKey ? 'with' : 'without'} an Idempotency-Key, then 400 invalid-request`, async () => {
        const idem = (): Record<string, string> => (withKey ? { 'idempotency-key': `deep-${unique()}` } : {});
        const cases: Array<[string, Record<string, string>]> = [
          ['/api/v1/orders', { ...key(), ...idem() }],
          ['/me/payments', { ...bearer(user.token), ...idem() }],
          [`/users/${user.userId}/top-ups`, { ...bearer(machine), ...idem() }],
          ['/auth/login', {}],
        ];
        for (const [path, headers] of cases) {
          const res = await read(
            await app.request(path, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body }),
          );
          expect(res.status, path).to.equal(400);
          expect(res.body.reason, path).to.equal('invalid-request');
        }
      });
    }

    it('when a body nests 32 levels (the limit), then it reaches the schema check', async () => {
      const res = await read(
        await app.request('/api/v1/orders', {
          method: 'POST',
          headers: { 'content-type': 'application/json', ...key() },
          body: `{"quoteId":${nested(31)}}`,
        }),
      );
      expect(res.status).to.equal(400);
      expect((res.body.errors as Array<{ path: string }>)[0]?.path).to.equal('quoteId');
    });
  });
});

describe('PostgreSQL refusing a value (the backstop behind the input checks)', () => {
  let server: http.Server;
  let url: string;
  before(async () => {
    const knex = (await testDatabase()).knex;
    const app = express();
    app.use(requestId);
    // A route that hands the query string to the database unchecked, as a forgotten check would.
    app.get('/echo', async (req, res) => {
      const rows = (await knex.raw('SELECT ?::text AS t, ?::int AS n', [String(req.query.t ?? ''), String(req.query.n ?? '0')])) as {
        rows: unknown[];
      };
      res.json(rows.rows);
    });
    app.use(errorHandler(silentLog, databaseRefusal));
    server = http.createServer(app);
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(() => new Promise<void>((r) => server.close(() => r())));

  it('when the database refuses a NUL or a malformed number (SQLSTATE class 22), then 400 invalid-request, not 500', async () => {
    for (const query of ['t=a%00b', 'n=twelve', 'n=99999999999']) {
      const res = await read(await fetch(`${url}/echo?${query}`));
      expect(res.status, query).to.equal(400);
      expect(res.body.reason, query).to.equal('invalid-request');
      expect(JSON.stringify(res.body), query).not.to.match(/0x00|syntax|UTF8/i);
    }
  });
});
