import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { parse } from 'yaml';
import { openService, type Service } from '../../src/bootstrap/service.js';
import { OPENAPI_FILES, type OpenApiFile } from '../../src/adapters/http/openapi/documents.js';
import { EXAMPLE_IDS, EXAMPLE_SECRETS } from '../../src/adapters/http/openapi/examples.js';
import { DnsWebhookUrlGuard } from '../../src/adapters/webhooks/url-guard.js';
import { silentLog, testConfig } from '../support/app.js';
import { testDatabase } from '../support/database.js';
import { expectMatchesSpec, expectResponseMatchesSpec } from '../support/openapi.js';

type Parameter = { name: string; in: 'path' | 'query' | 'header'; required?: boolean; example?: unknown };
type Operation = {
  operationId: string;
  'x-token': 'api-key' | 'operator-key' | 'machine' | 'user' | 'either' | 'none';
  parameters?: Parameter[];
  requestBody?: { content: Record<string, { example?: unknown }> };
  responses: Record<string, { content?: Record<string, { example?: unknown }> }>;
  security?: unknown;
};
type Doc = { paths: Record<string, Record<string, Operation>> };
type Published = Operation & { path: string; method: string };

/**
 * The order in which the examples are sent: an operation whose example names something an earlier
 * one makes (a quote, an order, a user, a payment, an endpoint, a delivery) comes after it. The
 * calling key is rolled and its successor reported leaked last, and the user token is revoked last.
 */
const PLAN = [
  'searchTransferLocations',
  'searchBusCities',
  'getAgentAccount',
  'getAgentStatement',
  'listBusTrips',
  'createWebhookEndpoint',
  'listWebhookEndpoints',
  'getWebhookEndpoint',
  'quoteAirportTransfer',
  'quoteBusTrip',
  'getQuote',
  'placeOrder',
  'listOrders',
  'getOrder',
  'getVoucher',
  'previewCancellation',
  'confirmHold',
  'releaseHold',
  'cancelOrder',
  'testOperatorConfirm',
  'testOperatorReject',
  'testOperatorCancel',
  'testExpireOrder',
  'testFundAccount',
  'listOperatorOrders',
  'getOperatorOrder',
  'confirmOperatorOrder',
  'rejectOperatorOrder',
  'cancelOperatorOrder',
  'redeemVoucher',
  'listWebhookDeliveries',
  'retryWebhookDelivery',
  'listAgentEvents',
  'sendTestWebhook',
  'deleteWebhookEndpoint',
  'listKeys',
  'createKey',
  'revokeCreatedKey',
  'listAgentSecurityEvents',
  'rollCurrentKey',
  'reportCurrentKeyLeaked',
  'getOAuthServerMetadata',
  'getJwks',
  'issueMachineToken',
  'issueDelegatedToken',
  'logIn',
  'getMe',
  'createWalletUser',
  'listWalletUsers',
  'getWalletUser',
  'createWebhookEndpointForTenant',
  'listWebhookEndpointsForTenant',
  'getWebhookEndpointForTenant',
  'listTenantSecurityEvents',
  'topUpWalletUser',
  'fundTestUser',
  'makePayment',
  'refundPayment',
  'makeTransfer',
  'getMyBalance',
  'getUserBalance',
  'authorizePayment',
  'getAuthorization',
  'listAuthorizations',
  'captureAuthorization',
  'voidAuthorization',
  'expireTestAuthorization',
  'getMyStatement',
  'getUserStatement',
  'listTransactions',
  'summarizeTransactions',
  'getTransaction',
  'listWebhookDeliveriesForTenant',
  'retryWebhookDeliveryForTenant',
  'listTenantEvents',
  'sendTestWebhookForTenant',
  'deleteWebhookEndpointForTenant',
  'introspectToken',
  'logOut',
  'revokeToken',
];

/** The operations a newcomer's first steps go through: their examples must succeed, not merely get a documented answer. */
const HAPPY = new Set([
  'searchTransferLocations',
  'searchBusCities',
  'getAgentAccount',
  'getAgentStatement',
  'listBusTrips',
  'quoteAirportTransfer',
  'quoteBusTrip',
  'getQuote',
  'placeOrder',
  'listOrders',
  'getOrder',
  'getVoucher',
  'previewCancellation',
  'cancelOrder',
  'createKey',
  'revokeCreatedKey',
  'listAgentSecurityEvents',
  'listTenantSecurityEvents',
  'listAgentEvents',
  'listTenantEvents',
  'sendTestWebhook',
  'sendTestWebhookForTenant',
  'issueMachineToken',
  'issueDelegatedToken',
  'logIn',
  'getMe',
  'getMyBalance',
  'getUserBalance',
  'authorizePayment',
  'getAuthorization',
  'listAuthorizations',
  'captureAuthorization',
  'getMyStatement',
  'getUserStatement',
  'topUpWalletUser',
  'makePayment',
  'refundPayment',
  'listTransactions',
  'summarizeTransactions',
  'getTransaction',
]);

/** The example values that stand for something the service makes or the demo prints: replaced by the real one once known. */
const STAND_INS = new Set<string>([...Object.values(EXAMPLE_IDS), ...Object.values(EXAMPLE_SECRETS)]);

const operationsOf = (doc: Doc): Published[] =>
  Object.entries(doc.paths).flatMap(([path, item]) => Object.entries(item).map(([method, op]) => ({ ...op, path, method })));

const isUuid = (value: unknown): boolean =>
  typeof value === 'string' && /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/.test(value);

/** Records, for every stand-in the documented answer shows, the value at the same place in the real answer. */
function learn(example: unknown, actual: unknown, known: Map<string, string>): void {
  if (typeof example === 'string' && STAND_INS.has(example) && typeof actual === 'string') known.set(example, actual);
  else if (Array.isArray(example) && Array.isArray(actual)) example.forEach((e, i) => learn(e, actual[i], known));
  else if (example !== null && typeof example === 'object' && actual !== null && typeof actual === 'object') {
    for (const [k, v] of Object.entries(example)) learn(v, (actual as Record<string, unknown>)[k], known);
  }
}

/** The example with every stand-in the test has learnt replaced by its real value. */
function substitute<T>(value: T, known: ReadonlyMap<string, string>): T {
  if (typeof value === 'string') return (known.get(value) ?? value) as T;
  if (Array.isArray(value)) return value.map((v) => substitute(v, known)) as T;
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, substitute(v, known)])) as T;
  }
  return value;
}

const successExample = (op: Operation): { status: string; example: unknown } | null => {
  const status = Object.keys(op.responses).find((s) => s.startsWith('2'));
  const example = status === undefined ? undefined : op.responses[status]!.content?.['application/json']?.example;
  return status === undefined || example === undefined ? null : { status, example };
};

interface Running {
  readonly url: string;
  readonly service: Service;
  stop(): Promise<void>;
}

/**
 * The real service on the test database. Webhook URLs are checked as in production, except that
 * every host name resolves to the loopback (allowed here): the examples name `hooks.example.com`,
 * which this machine may not resolve.
 */
async function startService(): Promise<Running> {
  const guard = new DnsWebhookUrlGuard({ allowInsecure: false, allowPrivate: true }, () =>
    Promise.resolve([{ address: '127.0.0.1', family: 4 }]),
  );
  const service = await openService(testConfig(), silentLog, {
    db: await testDatabase(),
    ports: { webhookUrlGuard: guard },
  });
  const server = http.createServer(service.app);
  // Client and server share one busy process here: an idle keep-alive socket the server closes
  // after its 5 s default while the client is parsing a file would be reused and reset.
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    service,
    stop: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await service.close();
    },
  };
}

/** A plain-http GET with the given Host header (fetch does not let a caller set Host). */
const getWithHost = (url: string, host: string): Promise<{ status: number; headers: http.IncomingHttpHeaders }> =>
  new Promise((resolve, reject) => {
    const req = http.get(url, { headers: { host } }, (res) => {
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers }));
    });
    req.on('error', reject);
  });

describe('the examples of the published files, sent to a running service on the demo data', () => {
  let app: Running;
  const docs = {} as Record<OpenApiFile, Doc>;
  /** Stand-in → real value: the demo's credentials, then what each answer makes. */
  const known = new Map<string, string>();
  let apiKey = '';
  let operatorKey = '';
  let demoPassword = '';
  let demoTenant = '';

  before(async () => {
    app = await startService();
    // As the first start does; `reset` issues fresh secrets on a database that already has the demo.
    const demo = (await app.service.core.admin.seedDemo.execute({ reset: true })) as unknown as {
      apiKey: string;
      wallet: { tenantId: string; clientId: string; clientSecret: string; user: { userId: string; password: string } };
    };
    apiKey = demo.apiKey;
    // The demo transfer's operator answers the operator file's examples about the demo order.
    operatorKey = (await app.service.core.admin.issueOperatorKey.execute('SIAM-AIRPORT-TRANSFERS')).apiKey;
    demoPassword = demo.wallet.user.password;
    demoTenant = demo.wallet.tenantId;
    known.set(EXAMPLE_IDS.client, demo.wallet.clientId);
    known.set(EXAMPLE_SECRETS.clientSecret, demo.wallet.clientSecret);
    known.set(EXAMPLE_SECRETS.password, demoPassword);
    const texts = await Promise.all(OPENAPI_FILES.map(async (file) => (await fetch(`${app.url}/openapi/${file}`)).text()));
    OPENAPI_FILES.forEach((file, i) => (docs[file] = parse(texts[i]!) as Doc));
  });
  after(() => app?.stop());

  it('when the served files are read, then every body, parameter and header has an example, keys are UUIDs and dates are ahead', () => {
    const today = new Date().toISOString().slice(0, 10);
    for (const file of OPENAPI_FILES) {
      for (const op of operationsOf(docs[file])) {
        const where = `${file} ${op.operationId}`;
        for (const p of op.parameters ?? []) {
          // A cursor is opaque: only a previous page's nextCursor is one.
          if (p.name === 'cursor') continue;
          expect(p.example, `${where}: example of ${p.in} parameter ${p.name}`).not.to.equal(undefined);
          if (p.name === 'Idempotency-Key') expect(isUuid(p.example), `${where}: Idempotency-Key example is a UUID`).to.equal(true);
        }
        for (const [type, media] of Object.entries(op.requestBody?.content ?? {})) {
          expect(media.example, `${where}: example of the ${type} body`).not.to.equal(undefined);
        }
        const text = JSON.stringify({ parameters: op.parameters, body: op.requestBody });
        for (const [date] of text.matchAll(/\d{4}-\d{2}-\d{2}/g)) {
          // Request dates are travel dates (ahead) or the start of a reading window (at most 30 days back).
          const ahead = date > today;
          const window = Date.parse(today) - Date.parse(date) <= 30 * 86_400_000;
          expect(ahead || window, `${where}: date ${date}`).to.equal(true);
        }
        const pickup = (op.requestBody?.content['application/json']?.example as { pickupAt?: string } | undefined)?.pickupAt;
        if (pickup !== undefined) expect(Date.parse(pickup), `${where}: pickupAt`).to.be.greaterThan(Date.now());
      }
    }
  });

  it('when a file is read as YAML 1.1 (as the reference page’s js-yaml does), then no example date turns into a Date', async () => {
    for (const file of OPENAPI_FILES) {
      const doc = parse(await (await fetch(`${app.url}/openapi/${file}`)).text(), { version: '1.1' }) as unknown;
      const dates: string[] = [];
      const walk = (node: unknown, at: string): void => {
        if (node instanceof Date) dates.push(at);
        else if (node !== null && typeof node === 'object') for (const [k, v] of Object.entries(node)) walk(v, `${at}/${k}`);
      };
      walk(doc, file);
      expect(dates).to.deep.equal([]);
    }
  });

  it('when a success answer has an example, then it matches the documented schema', () => {
    let checked = 0;
    for (const file of OPENAPI_FILES) {
      for (const op of operationsOf(docs[file])) {
        const success = successExample(op);
        if (success === null) continue;
        expectMatchesSpec(op.operationId, Number(success.status), success.example);
        checked += 1;
      }
    }
    expect(checked).to.be.greaterThan(40);
  });

  it('when an operation is in several files, then its examples are the same in each', () => {
    const seen = new Map<string, { file: string; op: Published }>();
    for (const file of OPENAPI_FILES) {
      for (const op of operationsOf(docs[file])) {
        const first = seen.get(op.operationId);
        if (first === undefined) seen.set(op.operationId, { file, op });
        else {
          const { security: _a, ...mine } = op;
          const { security: _b, ...theirs } = first.op;
          expect(mine, `${op.operationId} in ${file} and ${first.file}`).to.deep.equal(theirs);
        }
      }
    }
  });

  it('when every operation of every file is sent as its examples say, then each answer is documented, and the first steps succeed', async () => {
    const all = new Map<string, Published>();
    for (const file of OPENAPI_FILES) for (const op of operationsOf(docs[file])) all.set(op.operationId, op);
    expect([...all.keys()].sort(), 'the plan names every published operation').to.deep.equal([...PLAN].sort());

    let machine = '';
    let user = '';
    const answers: string[] = [];
    for (const operationId of PLAN) {
      const op = all.get(operationId)!;
      const example = (where: Parameter['in']) =>
        Object.fromEntries(
          (op.parameters ?? []).filter((p) => p.in === where && p.example !== undefined).map((p) => [p.name, substitute(p.example, known)]),
        );
      const path = op.path.replace(/\{([^}]+)\}/g, (_, name: string) => encodeURIComponent(String(example('path')[name])));
      const query = new URLSearchParams(Object.entries(example('query')).map(([k, v]): [string, string] => [k, String(v)])).toString();
      const headers: Record<string, string> = Object.fromEntries(Object.entries(example('header')).map(([k, v]) => [k, String(v)]));
      // The example key stands for one request: a new request makes a new one (the same key on a
      // database that kept an earlier run's request would rightly answer 422).
      if (headers['Idempotency-Key'] !== undefined) headers['Idempotency-Key'] = randomUUID();
      // A DPoP proof is made by the client's key for one request: the example shows its shape only.
      delete headers.DPoP;
      const token = op['x-token'];
      if (token === 'api-key') headers['X-API-KEY'] = apiKey;
      if (token === 'operator-key') headers['X-API-KEY'] = operatorKey;
      if (token === 'machine' || token === 'either') headers.Authorization = `Bearer ${machine}`;
      if (token === 'user') headers.Authorization = `Bearer ${user}`;
      let body: string | undefined;
      const [type, media] = Object.entries(op.requestBody?.content ?? {})[0] ?? [];
      if (type !== undefined) {
        const value = substitute(media!.example, known) as Record<string, unknown>;
        headers['Content-Type'] = type;
        body =
          type === 'application/x-www-form-urlencoded'
            ? new URLSearchParams(Object.entries(value).map(([k, v]): [string, string] => [k, String(v)])).toString()
            : JSON.stringify(value);
      }

      let res = await fetch(`${app.url}${path}${query ? `?${query}` : ''}`, {
        method: op.method.toUpperCase(),
        headers,
        ...(body === undefined ? {} : { body }),
      });
      // Deliveries are made by the event fan-out, a moment after the change.
      for (let i = 0; i < 50 && operationId.startsWith('listWebhookDeliveries') && res.status === 200; i++) {
        if (((await res.clone().json()) as { data: unknown[] }).data.length > 0) break;
        await new Promise((r) => setTimeout(r, 100));
        res = await fetch(`${app.url}${path}${query ? `?${query}` : ''}`, { method: 'GET', headers });
      }
      const where = `${operationId}: ${op.method.toUpperCase()} ${path}${query ? `?${query}` : ''}`;
      expect(Object.keys(op.responses), `${where} answered ${res.status}, which the file does not declare`).to.include(String(res.status));
      const answer = await expectResponseMatchesSpec<Record<string, unknown>>(operationId, res);
      answers.push(`${operationId} ${res.status}`);
      if (HAPPY.has(operationId)) {
        expect(res.status, `${where}: ${JSON.stringify(answer)}`).to.be.within(200, 299);
      }
      if (operationId === 'createWalletUser' && res.status === 409) {
        // A database that kept an earlier run has the example user already: the transfer goes to it.
        const email = (JSON.parse(body!) as { email: string }).email;
        const existing = await app.service.ports.tenants.findUserByEmail(demoTenant, email);
        known.set(EXAMPLE_IDS.otherUser, existing!.id);
      }
      if (res.status < 200 || res.status > 299) continue;

      const success = successExample(op);
      if (success !== null) learn(success.example, answer, known);
      if (operationId === 'issueMachineToken') machine = answer.access_token as string;
      if (operationId === 'logIn') user = answer.access_token as string;
      if (operationId === 'rollCurrentKey') apiKey = answer.apiKey as string;
      if (operationId === 'quoteAirportTransfer') {
        // The documented price is what the demo agent pays: Suvarnabhumi to a Sukhumvit hotel.
        expect(answer.price, 'the documented quote price').to.deep.equal((success!.example as { price: unknown }).price);
      }
      if (operationId === 'summarizeTransactions') {
        const counted = (answer.byType as Array<{ count: number }>).reduce((n, t) => n + t.count, 0);
        expect(counted, 'the summary example’s window holds what was just done').to.be.greaterThan(0);
      }
    }
    // What makes the later examples real: every stand-in the plan needs was learnt from an answer.
    for (const id of [
      EXAMPLE_IDS.transferQuote,
      EXAMPLE_IDS.order,
      EXAMPLE_IDS.demoUser,
      EXAMPLE_IDS.payment,
      EXAMPLE_IDS.bookingEndpoint,
    ]) {
      expect(known.has(id), `learnt ${id}: ${answers.join(', ')}`).to.equal(true);
    }
    expect(known.get(EXAMPLE_IDS.demoUser)).to.match(/^usr_/);
    // Every example succeeded, but the user that a database kept from an earlier run has already,
    // and the hold's confirm and release: the example order is booked, not held, so both are
    // refused as documented (409 order-not-on-hold); and the operator's answers to it, which the
    // agent cancelled before (409 order-not-pending, order-already-cancelled); the void of the
    // example authorization, which its capture resolved before (409 authorization-not-pending); and
    // the redeem of the example's code, which this service never signed (400 invalid-voucher); and
    // the sandbox's test helpers, which neither the live demo agent nor the live demo tenant has (404 not-found).
    const expected = new Set([
      'fundTestUser 404',
      'testOperatorConfirm 404',
      'testOperatorReject 404',
      'testOperatorCancel 404',
      'testExpireOrder 404',
      'testFundAccount 404',
      'expireTestAuthorization 404',
      'voidAuthorization 409',
      'createWalletUser 409',
      'confirmHold 409',
      'releaseHold 409',
      'confirmOperatorOrder 409',
      'rejectOperatorOrder 409',
      'cancelOperatorOrder 409',
      'redeemVoucher 400',
    ]);
    const failed = answers.filter((a) => !/ 2\d\d$/.test(a) && !expected.has(a));
    expect(failed, answers.join(', ')).to.deep.equal([]);
  });

  it('when /docs is opened over plain http at a host that is not localhost, then no header asks for https, and the API keeps its strict headers', async () => {
    for (const path of ['/docs', '/docs/docs-init.js', '/docs/swagger-ui.css']) {
      const res = await getWithHost(`${app.url}${path}`, 'pbw.internal.example:8080');
      expect(res.status, path).to.equal(200);
      const csp = String(res.headers['content-security-policy']);
      expect(csp, path).not.to.include('upgrade-insecure-requests');
      expect(csp, path).to.include("default-src 'self'");
      expect(csp, path).to.include("script-src 'self'");
      expect(csp, path).to.include("object-src 'none'");
      expect(res.headers['x-content-type-options'], path).to.equal('nosniff');
    }
    for (const path of ['/healthz', '/api/v1/express-bus/cities?q=ban', '/openapi/booking-api.yaml']) {
      const res = await getWithHost(`${app.url}${path}`, 'pbw.internal.example:8080');
      expect(res.headers['content-security-policy'], path).to.equal("default-src 'none';frame-ancestors 'none'");
      expect(res.headers['x-frame-options'], path).to.equal('DENY');
      expect(res.headers['strict-transport-security'], path).to.match(/max-age=/);
    }
  });
});
