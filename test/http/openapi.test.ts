import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import express from 'express';
import { parse } from 'yaml';
import getAbsoluteFSPath from 'swagger-ui-dist/absolute-path.js';
import {
  BOOKING_OPERATIONS,
  OPERATOR_OPERATIONS,
  BOOKING_PUBLIC_OPERATIONS,
  OPERATIONS,
  WALLET_OPERATIONS,
  WELL_KNOWN_OPERATIONS,
} from '../../src/adapters/http/operations.js';
import { operationRouter, type OperationDeps } from '../../src/adapters/http/operation-router.js';
import {
  committedExamplesDay,
  FILE_MEMBERSHIP,
  OPENAPI_FILES,
  renderOpenApiFiles,
  TAG_DESCRIPTIONS,
} from '../../src/adapters/http/openapi/documents.js';
import { exampleDayOf } from '../../src/adapters/http/openapi/examples.js';
import { silentLog, startTestApp, type TestApp } from '../support/app.js';
import { buildAgent, type TestAgent } from '../support/builders.js';
import { expectMatchesSpec, expectResponseMatchesSpec, mountedRoutes, routeCoverage } from '../support/openapi.js';
import { createApp } from '../../src/adapters/http/app.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const committed = (file: string): Promise<string> => readFile(path.join(root, 'openapi', file), 'utf8');

type Operation = {
  operationId: string;
  security?: unknown[];
  'x-token'?: string;
  parameters?: Array<{ in: string; name: string }>;
  responses: Record<string, unknown>;
};
const operationsOf = (doc: { paths: Record<string, Record<string, Operation>> }) =>
  Object.entries(doc.paths).flatMap(([p, item]) => Object.entries(item).map(([method, op]) => ({ path: p, method, ...op })));

describe('published interface (OpenAPI files)', () => {
  it('when the files are generated from the code for the day they record, then they equal the committed files under openapi/ (else: npm run openapi)', async () => {
    for (const file of OPENAPI_FILES) {
      const onDisk = await committed(file).catch(() => '(missing)');
      const day = committedExamplesDay(onDisk);
      expect(day, `openapi/${file}: info.x-examples-as-of`).to.match(/^\d{4}-\d{2}-\d{2}$/);
      const generated = renderOpenApiFiles(OPERATIONS, { asOf: day! });
      expect(onDisk === generated[file], `openapi/${file} differs from the code: run npm run openapi and commit`).to.equal(true);
    }
  });

  it('when the files are generated on two days, then they differ only in dates and the day they record', () => {
    const a = renderOpenApiFiles(OPERATIONS, { asOf: '2026-11-26' });
    const b = renderOpenApiFiles(OPERATIONS, { asOf: '2027-03-01' });
    const undated = (text: string) => text.replace(/\d{4}-\d{2}-\d{2}(T[0-9:.]+(Z|[+-]\d{2}:\d{2}))?/g, 'D').replace(/_\d{12}\b/g, '_T');
    for (const file of OPENAPI_FILES) {
      expect(a[file], file).not.to.equal(b[file]);
      expect(undated(a[file]), file).to.equal(undated(b[file]));
      expect(committedExamplesDay(b[file]), file).to.equal('2027-03-01');
    }
  });

  it('when an operation is published, then it is under exactly one tag, and every tag is described', () => {
    const generated = renderOpenApiFiles(OPERATIONS);
    for (const file of OPENAPI_FILES) {
      const doc = parse(generated[file]) as { tags: Array<{ name: string; description?: string }>; paths: any };
      for (const op of operationsOf(doc) as Array<Operation & { tags?: string[] }>) {
        expect(op.tags, `${file} ${op.operationId}: tags`).to.have.length(1);
        expect(Object.keys(TAG_DESCRIPTIONS), `${file} ${op.operationId}`).to.include(op.tags![0]);
      }
      for (const tag of doc.tags) expect(tag.description, `${file} tag ${tag.name}`).to.be.a('string');
    }
  });

  it('when the servers are read, then there is one, relative to where the file is served (no localhost)', () => {
    const generated = renderOpenApiFiles(OPERATIONS, { walletBasePath: '/wallet' });
    for (const file of OPENAPI_FILES) {
      expect(
        (parse(generated[file]) as { servers: Array<{ url: string }> }).servers.map((s) => s.url),
        file,
      ).to.deep.equal(['/']);
      expect(generated[file], file).not.to.match(/localhost|127\.0\.0\.1/);
    }
  });

  it('when each file is read, then it is OpenAPI 3.1 whose $refs resolve, with unique operation ids and every path parameter declared', () => {
    const generated = renderOpenApiFiles(OPERATIONS);
    for (const file of OPENAPI_FILES) {
      const doc = parse(generated[file]) as Record<string, any>;
      expect(doc.openapi, file).to.equal('3.1.0');
      expect(doc.info.version, file).to.be.a('string');
      const refs = [...generated[file].matchAll(/\$ref: "#\/([^"]+)"/g)].map((m) => m[1] as string);
      for (const ref of refs) {
        const target = ref.split('/').reduce<any>((node, part) => node?.[part], doc);
        expect(target, `${file}: $ref #/${ref}`).not.to.equal(undefined);
      }
      const ops = operationsOf(doc as any);
      expect(new Set(ops.map((o) => o.operationId)).size, `${file}: operation ids`).to.equal(ops.length);
      for (const op of ops) {
        for (const [, name] of op.path.matchAll(/\{([^}]+)\}/g)) {
          expect(
            op.parameters?.some((p) => p.in === 'path' && p.name === name),
            `${file} ${op.operationId}: path parameter ${name}`,
          ).to.equal(true);
        }
      }
    }
  });

  it('when a wallet or booking operation is published, then it carries x-token and security matching its token rule', () => {
    const expectedSecurity: Record<string, unknown[]> = {
      'api-key': [{ apiKey: [] }],
      machine: [{ machineToken: [] }],
      user: [{ userToken: [] }],
      either: [{ machineToken: [] }, { userToken: [] }],
      none: [],
    };
    const generated = renderOpenApiFiles(OPERATIONS);
    for (const file of ['booking-api.yaml', 'wallet-api.yaml'] as const) {
      for (const op of operationsOf(parse(generated[file]))) {
        const spec = OPERATIONS.find((o) => o.operationId === op.operationId)!;
        expect(op['x-token'], `${file} ${op.operationId}: x-token`).to.be.oneOf(
          file === 'wallet-api.yaml' ? ['machine', 'user', 'either', 'none'] : ['api-key', 'none'],
        );
        expect(op['x-token']).to.equal(spec.token);
        expect(op.security, `${file} ${op.operationId}: security`).to.deep.equal(expectedSecurity[spec.token]);
      }
    }
  });

  it('when the scoped wallet files are read, then they hold exactly the operations a machine or a user token may call', () => {
    const generated = renderOpenApiFiles(OPERATIONS);
    const ids = (file: (typeof OPENAPI_FILES)[number]) =>
      operationsOf(parse(generated[file]))
        .map((o) => o.operationId)
        .sort();
    const wallet = OPERATIONS.filter((o) => o.surface === 'wallet');
    const tokenless = wallet.filter((o) => o.token === 'none').map((o) => o.operationId);
    expect(tokenless.sort()).to.deep.equal([
      'getJwks',
      'getOAuthServerMetadata',
      'introspectToken',
      'issueMachineToken',
      'logIn',
      'revokeToken',
    ]);
    // The backend: what a machine token may call, and the token-less operations a backend uses
    // (token endpoint, JWKS, metadata, revocation, introspection).
    expect(ids('wallet-backend-api.yaml')).to.deep.equal(
      wallet
        .filter((o) => o.token === 'machine' || o.token === 'either')
        .map((o) => o.operationId)
        .concat(['getJwks', 'getOAuthServerMetadata', 'introspectToken', 'issueMachineToken', 'revokeToken'])
        .sort(),
    );
    // The app: what a user token may call and the password login; nothing that takes a client secret.
    expect(ids('wallet-app-api.yaml')).to.deep.equal(
      wallet
        .filter((o) => o.token === 'user' || o.token === 'either')
        .map((o) => o.operationId)
        .concat(['logIn'])
        .sort(),
    );
    expect(ids('wallet-app-api.yaml')).to.include.members(['logIn', 'logOut']);
    expect(ids('wallet-app-api.yaml')).not.to.include.members([
      'issueMachineToken',
      'getOAuthServerMetadata',
      'revokeToken',
      'introspectToken',
    ]);
    expect(ids('wallet-api.yaml')).to.deep.equal(wallet.map((o) => o.operationId).sort());
    expect(ids('booking-api.yaml')).to.deep.equal(
      OPERATIONS.filter(FILE_MEMBERSHIP['booking-api.yaml'])
        .map((o) => o.operationId)
        .sort(),
    );
  });
});

describe('routes and OperationSpecs', () => {
  let app: TestApp;
  before(async () => {
    app = await startTestApp();
  });
  after(() => app.stop());

  it('when the app’s router stack is walked, then every mounted route has an OperationSpec and every OperationSpec a route', () => {
    expect(routeCoverage(app.service.app)).to.deep.equal({ undocumented: [], unmounted: [] });
  });

  it('when a route is mounted without a spec, or a spec has no route, then the check names both', () => {
    const extra = express.Router();
    extra.post('/orders/:orderId/refund', (_req, res) => {
      res.end();
    });
    const outer = express();
    const api = express.Router();
    api.use(extra);
    outer.use('/api/v1', api);
    outer.get('/healthz', (_req, res) => {
      res.end();
    });
    const specs = OPERATIONS.filter((o) => o.operationId === 'getHealth' || o.operationId === 'getAgentAccount');
    expect(routeCoverage(outer, specs)).to.deep.equal({
      undocumented: ['POST /api/v1/orders/{orderId}/refund'],
      unmounted: ['GET /api/v1/agent/account'],
    });
  });

  it('when wallet routes sit behind their own auth middleware, at the root or under WALLET_BASE_PATH, then the walk finds them', () => {
    const walletRouter = express.Router();
    walletRouter.use((_req, _res, next) => next());
    walletRouter.get('/me/balance', (_req, res) => {
      res.end();
    });
    walletRouter.route('/users/:userId').get((_req, res) => {
      res.end();
    });
    const surfaces = (walletBasePath: string) => ({
      root: [],
      bookingPublic: [],
      bookingAuth: ((_req, _res, next) => next()) as express.RequestHandler,
      booking: [],
      wallet: [walletRouter],
      walletBasePath,
    });
    const found = (walletBasePath: string) =>
      mountedRoutes(createApp(surfaces(walletBasePath), silentLog))
        .map((r) => `${r.method} ${r.path}`)
        .sort();
    expect(found('')).to.deep.equal(['get /me/balance', 'get /users/{userId}']);
    expect(found('/wallet')).to.deep.equal(['get /wallet/me/balance', 'get /wallet/users/{userId}']);
  });

  it('when the surfaces are built from the declaration lists, then a declaration left out of its list is named unmounted', () => {
    const pass: express.RequestHandler = (_req, _res, next) => next();
    // Nothing is called: the routes are only walked.
    const server = { issuer: 'https://pbw.local', walletBasePath: '', jwks: async () => ({ keys: [] }) };
    const deps = { auth: () => pass, limits: new Proxy({}, { get: () => pass }), server } as unknown as OperationDeps;
    const build = (wallet: typeof WALLET_OPERATIONS) =>
      createApp(
        {
          root: [operationRouter(WELL_KNOWN_OPERATIONS, deps)],
          bookingPublic: [operationRouter(BOOKING_PUBLIC_OPERATIONS, deps)],
          bookingAuth: pass,
          booking: [operationRouter(BOOKING_OPERATIONS, deps, { behindKey: true })],
          operatorAuth: pass,
          operator: [operationRouter(OPERATOR_OPERATIONS, deps, { behindKey: true })],
          wallet: [operationRouter(wallet, deps)],
          walletBasePath: '',
        },
        silentLog,
      );
    const declared = OPERATIONS.filter((op) => op.surface !== 'platform' && 'handler' in op);
    expect(routeCoverage(build(WALLET_OPERATIONS), declared)).to.deep.equal({ undocumented: [], unmounted: [] });
    const lessOne = WALLET_OPERATIONS.filter((op) => op.operationId !== 'makePayment');
    expect(routeCoverage(build(lessOne), declared)).to.deep.equal({ undocumented: [], unmounted: ['POST /me/payments'] });
  });

  it('when a declaration is put on the wrong side of the key check, or publishes an Idempotency-Key it does not handle, then building its router fails', () => {
    const deps = {} as OperationDeps;
    expect(() => operationRouter(BOOKING_OPERATIONS, deps)).to.throw(/takes an API key but its router is not behind the key check/);
    expect(() => operationRouter(BOOKING_PUBLIC_OPERATIONS, deps, { behindKey: true })).to.throw(/takes no credential/);
    const placeOrder = BOOKING_OPERATIONS.find((op) => op.operationId === 'placeOrder')!;
    const { idempotency: _, ...withoutIdempotency } = placeOrder;
    expect(() => operationRouter([withoutIdempotency], deps, { behindKey: true })).to.throw(
      /Idempotency-Key header is published exactly when/,
    );
  });

  it('when every OperationSpec is listed, then operation ids are unique and paths are templates of mounted form', () => {
    const ids = OPERATIONS.map((o) => o.operationId);
    expect(new Set(ids).size).to.equal(ids.length);
    for (const op of OPERATIONS) expect(op.path, op.operationId).to.match(/^\/[A-Za-z0-9._~{}/-]*$/);
  });
});

describe('real responses match the published schemas', () => {
  let app: TestApp;
  let agent: TestAgent;
  before(async () => {
    app = await startTestApp();
    await app.service.core.catalogue.seed.execute();
    agent = await buildAgent(app.service);
  });
  after(() => app.stop());

  const withKey = (key: string) => ({ headers: { 'X-API-KEY': key } });

  it('when the public autocomplete routes are called, then their 200 and 400 answers match the files', async () => {
    const locations = await expectResponseMatchesSpec<{ data: unknown[] }>(
      'searchTransferLocations',
      await app.request('/api/v1/airport-transfer/locations?q=bkk'),
    );
    expect(locations.data).not.to.have.length(0);
    await expectResponseMatchesSpec('searchTransferLocations', await app.request('/api/v1/airport-transfer/locations'));
    const cities = await expectResponseMatchesSpec<{ data: unknown[] }>(
      'searchBusCities',
      await app.request('/api/v1/express-bus/cities?q=chiang'),
    );
    expect(cities.data).not.to.have.length(0);
    await expectResponseMatchesSpec('searchBusCities', await app.request(`/api/v1/express-bus/cities?q=${'x'.repeat(65)}`));
  });

  it('when the account is read with a good, missing, unknown or suspended agent’s key, then each answer matches the files', async () => {
    await expectResponseMatchesSpec('getAgentAccount', await app.request('/api/v1/agent/account', withKey(agent.apiKey)));
    const missing = await app.request('/api/v1/agent/account');
    expect(missing.status).to.equal(401);
    await expectResponseMatchesSpec('getAgentAccount', missing);
    await expectResponseMatchesSpec('getAgentAccount', await app.request('/api/v1/agent/account', withKey('pbk_nope')));
    const suspended = await buildAgent(app.service);
    await app.service.core.admin.setAgentStatus.execute(suspended.agentId, 'SUSPENDED');
    const res = await app.request('/api/v1/agent/account', withKey(suspended.apiKey));
    expect(res.status).to.equal(403);
    await expectResponseMatchesSpec('getAgentAccount', res);
  });

  it('when the health routes are called, then their answers match the files', async () => {
    await expectResponseMatchesSpec('getHealth', await app.request('/healthz'));
    await expectResponseMatchesSpec('getReadiness', await app.request('/readyz'));
  });

  it('when the docs routes are called, then their answers match the files', async () => {
    await expectResponseMatchesSpec('getOpenApiFile', await app.request('/openapi/wallet-api.yaml'));
    await expectResponseMatchesSpec('getOpenApiFile', await app.request('/openapi/nope.yaml'));
    await expectResponseMatchesSpec('getDocsPage', await app.request('/docs'));
    await expectResponseMatchesSpec('getDocsAsset', await app.request('/docs/swagger-ui.css'));
    await expectResponseMatchesSpec('getDocsAsset', await app.request('/docs/index.html'));
    await expectResponseMatchesSpec('getRoot', await app.request('/', { redirect: 'manual' }));
  });

  it('when a body has a field its schema does not declare, a status is undocumented or a reason is not listed, then the check fails', () => {
    const account = {
      agentId: 'agt_1',
      name: 'A',
      status: 'ACTIVE',
      channel: { code: 'C', name: 'C', currency: 'THB' },
      entitlements: [],
      pricing: { currency: 'THB', channelMarkupBps: 0, agentDiscountBps: 0 },
      apiKey: { id: 'key_1', prefix: 'pbk_abcd', createdAt: '2026-01-01T00:00:00Z', expiresAt: null },
      billing: {
        mode: 'invoice',
        balance: { amount: 0, currency: 'THB' },
        held: { amount: 0, currency: 'THB' },
        creditLimit: { amount: 0, currency: 'THB' },
        spendable: { amount: 0, currency: 'THB' },
        lowBalanceAlert: null,
      },
      livemode: true,
    };
    expect(() => expectMatchesSpec('getAgentAccount', 200, account)).not.to.throw();
    expect(() => expectMatchesSpec('getAgentAccount', 200, { ...account, channel: { ...account.channel, secret: 'x' } })).to.throw(
      /channel\.secret/,
    );
    expect(() => expectMatchesSpec('getAgentAccount', 200, { ...account, status: 'SUSPENDED' })).to.throw(/does not match/);
    expect(() => expectMatchesSpec('getAgentAccount', 404, {})).to.throw(/does not document status 404/);
    const problem = { type: 'about:blank', title: 'Unauthorized', status: 401, reason: 'missing-api-key', message: 'm', requestId: 'r' };
    expect(() => expectMatchesSpec('getAgentAccount', 401, problem)).not.to.throw();
    expect(() => expectMatchesSpec('getAgentAccount', 401, { ...problem, reason: 'invalid-token' })).to.throw(/not a documented problem/);
    expect(() => expectMatchesSpec('nope', 200, {})).to.throw(/no OperationSpec/);
  });
});

describe('GET /openapi/<file> and GET /docs', () => {
  let app: TestApp;
  before(async () => {
    app = await startTestApp();
  });
  after(() => app.stop());

  it('when each file is fetched, then it is served as application/yaml and is the file generated for today', async () => {
    for (const file of OPENAPI_FILES) {
      const before = exampleDayOf(new Date());
      const res = await app.request(`/openapi/${file}`);
      const after = exampleDayOf(new Date());
      expect(res.status, file).to.equal(200);
      expect(res.headers.get('content-type')).to.match(/^application\/yaml/);
      const text = await res.text();
      const day = committedExamplesDay(text);
      // Generated again on the first request of a day: the day of the request.
      expect(day, file).to.be.oneOf([before, after]);
      expect(text).to.equal(renderOpenApiFiles(OPERATIONS, { asOf: day! })[file]);
    }
  });

  it('when WALLET_BASE_PATH is set, then every operation of the served wallet files, at server URL + path, reaches its route (no /wallet/wallet, no 404)', async () => {
    const prefixed = await startTestApp({ env: { WALLET_BASE_PATH: '/wallet' } });
    try {
      for (const file of ['wallet-api.yaml', 'wallet-backend-api.yaml', 'wallet-app-api.yaml'] as const) {
        const doc = parse(await (await prefixed.request(`/openapi/${file}`)).text()) as {
          servers: Array<{ url: string }>;
          paths: Record<string, Record<string, unknown>>;
        };
        const server = doc.servers[0]!.url.replace(/\/$/, '');
        expect(
          Object.keys(doc.paths).some((p) => p.startsWith('/wallet/wallet')),
          file,
        ).to.equal(false);
        for (const [path, item] of Object.entries(doc.paths)) {
          for (const method of Object.keys(item)) {
            const target = `${server}${path.replace(/\{[^}]+\}/g, 'x')}`;
            const res = await prefixed.request(target, { method: method.toUpperCase() });
            const body = await res.text();
            expect(res.status, `${file}: ${method.toUpperCase()} ${target} ${body}`).not.to.equal(404);
          }
        }
      }
      const booking = parse(await (await prefixed.request('/openapi/booking-api.yaml')).text()) as { servers: Array<{ url: string }> };
      expect(booking.servers[0]!.url).to.equal('/');
    } finally {
      await prefixed.stop();
    }
  });

  it('when the address the server prints is opened, then it redirects (302) to /docs, and following it shows the reference', async () => {
    const res = await app.request('/', { redirect: 'manual' });
    expect(res.status).to.equal(302);
    expect(res.headers.get('location')).to.equal('/docs');
    const followed = await app.request('/');
    expect(followed.status).to.equal(200);
    expect(followed.url).to.equal(`${app.url}/docs`);
    expect(followed.headers.get('content-type')).to.match(/^text\/html/);
    // Only the root itself: an unknown path is still a 404 problem.
    expect((await app.request('/nope')).status).to.equal(404);
  });

  it('when /docs is opened, then the page lists the four files and loads only assets of this server', async () => {
    const res = await app.request('/docs');
    expect(res.status).to.equal(200);
    expect(res.headers.get('content-type')).to.match(/^text\/html/);
    const html = await res.text();
    for (const file of OPENAPI_FILES) expect(html).to.include(`href="/openapi/${file}"`);
    const sources = [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1] as string);
    expect(sources.filter((s) => !s.startsWith('/'))).to.deep.equal([]);
    const init = await app.request('/docs/docs-init.js');
    expect(init.headers.get('content-type')).to.match(/^text\/javascript/);
    const script = await init.text();
    for (const file of OPENAPI_FILES) expect(script).to.include(`/openapi/${file}`);
    expect(script).not.to.match(/https?:\/\//);
    for (const src of sources.filter((s) => s.startsWith('/docs/'))) {
      expect((await app.request(src)).status, src).to.equal(200);
    }
  });

  it('when a Swagger UI asset is fetched, then it is the installed package’s file with its content type; other files are 404', async () => {
    const res = await app.request('/docs/swagger-ui-bundle.js');
    expect(res.headers.get('content-type')).to.match(/^text\/javascript/);
    const served = Buffer.from(await res.arrayBuffer());
    expect(served.equals(await readFile(path.join(getAbsoluteFSPath(), 'swagger-ui-bundle.js')))).to.equal(true);
    expect((await app.request('/docs/swagger-ui.css')).headers.get('content-type')).to.match(/^text\/css/);
    for (const other of ['/docs/index.html', '/docs/swagger-initializer.js', '/docs/..%2Fpackage.json', '/openapi/..%2Fpackage.json']) {
      const miss = await app.request(other);
      expect(miss.status, other).to.equal(404);
      expect(((await miss.json()) as { reason: string }).reason).to.equal('not-found');
    }
  });
});
