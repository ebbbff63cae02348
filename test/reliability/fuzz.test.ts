import { expect } from 'chai';
import fc from 'fast-check';
import { OPERATIONS } from '../../src/adapters/http/operations.js';
import type { OperationSpec } from '../../src/adapters/http/operation.js';
import type { Knex } from 'knex';
import type { BusSchedule } from '../../src/domain/catalogue/catalogue.js';
import { json, startTestApp, type TestApp } from '../support/app.js';
import { buildSchedule, dateAhead, dropTestSchedules, tripIdOf } from '../support/booking-builders.js';
import { buildAgent, issueKey, unique, type TestAgent } from '../support/builders.js';
import { basicAuth, bearer, buildTenant, delegatedToken, machineToken, testAddress, type TestTenant } from '../support/wallet-builders.js';
import { buildOperator } from '../../src/testing/fixtures.js';

/**
 * Random bodies, query strings, headers and paths against every published operation (so routes
 * added to OPERATIONS later are covered without touching this file): never a 5xx, never a stack
 * trace or SQL text, and every error is problem+json with a reason.
 */
const RUNS = Number(process.env.FUZZ_RUNS ?? 60);

const LEAKS =
  /\bat \S+ \(|\bat \S+:\d+:\d+|node_modules|\.ts:\d+|\b(SELECT|INSERT INTO|UPDATE \w+ SET|DELETE FROM)\b|\bknex\b|SQLSTATE|syntax error at|TypeError|ReferenceError|RangeError|SyntaxError/;

const printable = fc.string({ unit: fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c)), maxLength: 80 });
const nasty = fc.constantFrom(
  '',
  ' ',
  '0',
  '-1',
  '1e309',
  'NaN',
  'null',
  'true',
  '[]',
  '{}',
  "' OR 1=1 --",
  '"; DROP TABLE agents; --',
  '../../etc/passwd',
  '%00',
  '__proto__',
  'constructor',
  'x'.repeat(300),
  '💥',
  'ñ̃',
  '<script>alert(1)</script>',
  '9'.repeat(40),
  '2026-02-30T25:61:00Z',
);
const text = fc.oneof(printable, nasty, fc.string({ maxLength: 40 }), fc.string({ unit: 'grapheme', maxLength: 20 }));

/** Values that look like the service's own: ids with and without prefixes, numbers, dates. */
const idLike = fc.oneof(
  fc.constantFrom('agt_', 'qte_', 'ord_', 'usr_', 'txn_', 'key_', 'loc_', 'cty_', 'trp_').chain((p) => printable.map((s) => p + s)),
  fc.integer().map(String),
  fc.date({ noInvalidDate: true }).map((d) => d.toISOString()),
);
const value = fc.oneof(text, idLike);

const jsonish: fc.Arbitrary<unknown> = fc.letrec((tie) => ({
  any: fc.oneof(
    { depthSize: 'small' },
    fc.jsonValue(),
    fc.dictionary(
      fc.oneof(printable, fc.constantFrom('__proto__', 'constructor', 'prototype', 'amount', 'agentId', 'channel', 'price')),
      tie('any') as fc.Arbitrary<unknown>,
      { maxKeys: 6 },
    ),
    fc.array(tie('any') as fc.Arbitrary<unknown>, { maxLength: 4 }),
    value,
    fc.integer(),
    fc.double(),
  ),
})).any;

/** A body: JSON of any shape, not JSON at all, or a known field set with random values. */
const bodyFor = (op: OperationSpec) => {
  const fields = Object.keys((op.request?.body as unknown as { shape?: Record<string, unknown> } | undefined)?.shape ?? {});
  const shaped =
    fields.length > 0
      ? fc.record(Object.fromEntries(fields.map((f) => [f, jsonish])) as Record<string, fc.Arbitrary<unknown>>, { requiredKeys: [] })
      : jsonish;
  return fc.oneof(
    shaped.map((b) => ({ type: 'application/json', body: JSON.stringify(b) ?? 'null' })),
    jsonish.map((b) => ({ type: 'application/json', body: JSON.stringify(b) ?? 'null' })),
    fc.record({
      type: fc.constantFrom(
        'application/json',
        'text/plain',
        'application/x-www-form-urlencoded',
        'multipart/form-data',
        'application/xml',
        '',
      ),
      body: fc.string({ maxLength: 200 }),
    }),
    fc.constant({ type: 'application/json', body: `{"pad":"${'x'.repeat(70 * 1024)}"}` }),
    fc.constant({ type: 'application/json', body: '{"__proto__":{"isAdmin":true},"constructor":{"prototype":{"isAdmin":true}}}' }),
  );
};

const queryFor = (op: OperationSpec) => {
  const known = Object.keys(op.request?.query?.shape ?? {});
  const key = fc.oneof(
    ...(known.length > 0 ? [fc.constantFrom(...known)] : []),
    printable,
    fc.constantFrom('__proto__', 'constructor', 'limit', 'cursor', 'q[]', 'a[b]'),
  );
  return fc.oneof(
    fc.array(fc.tuple(key, value), { maxLength: 6 }).map((pairs) => new URLSearchParams(pairs).toString()),
    fc.constantFrom('%', '%zz', '&&==', 'q=%E0%A4%A', 'q=a&q=b&q=c', 'limit=1&limit=2', `q=${'a'.repeat(5000)}`),
  );
};

const pathFor = (op: OperationSpec) =>
  fc.tuple(fc.array(value, { minLength: 4, maxLength: 4 }), fc.option(value, { nil: undefined })).map(([vals, extra]) => {
    let i = 0;
    const filled = op.path.replace(/\{[^}]+\}/g, () => encodeURIComponent(vals[i++ % vals.length] ?? ''));
    return extra === undefined ? filled : `${filled}/${encodeURIComponent(extra)}`;
  });

type Creds = { apiKey: string };
const headersFor = (creds: Creds) =>
  fc.record(
    {
      'x-api-key': fc.oneof(fc.constant(creds.apiKey), printable, fc.constant(`${creds.apiKey}x`)),
      authorization: fc.oneof(
        printable,
        printable.map((s) => `Bearer ${s}`),
        fc.constant('Bearer eyJhbGciOiJub25lIn0.eyJzdWIiOiJ4In0.'),
        printable.map((s) => `Basic ${Buffer.from(s).toString('base64')}`),
      ),
      'idempotency-key': printable,
      'x-request-id': printable,
      accept: fc.constantFrom('*/*', 'text/html', 'application/xml', 'application/json'),
      'accept-encoding': fc.constantFrom('gzip', 'br', 'identity', 'x'),
      'content-encoding': fc.constantFrom('gzip', 'deflate', 'x-unknown'),
    },
    { requiredKeys: [] },
  );

// As the server sees it: the client resolves dot segments ("/oauth/token/." is "/oauth/token/").
const isOAuthTokenPath = (path: string): boolean =>
  /^\/oauth\/(token|revoke|introspect)\/?(\?|$)/.test(new URL(path, 'http://x').pathname.replace(/^\/[A-Za-z0-9._-]+(?=\/oauth\/)/, ''));

/** Sends one request and checks its answer; returns the status, or null when the client refused to send it. */
async function check(
  app: TestApp,
  method: string,
  path: string,
  headers: Record<string, string>,
  body?: { type: string; body: string },
): Promise<number | null> {
  const init: RequestInit = { method: method.toUpperCase(), headers: { ...headers } };
  if (body !== undefined && method !== 'get' && method !== 'head') {
    init.body = body.body;
    if (body.type !== '') (init.headers as Record<string, string>)['content-type'] = body.type;
  }
  let res: Response;
  try {
    res = await app.request(path, init);
  } catch (err) {
    // The client refused to send it (an invalid header value for fetch): nothing reached the server.
    if (err instanceof TypeError) return null;
    throw err;
  }
  const text = await res.text();
  const where = `${method.toUpperCase()} ${path} -> ${res.status} ${text.slice(0, 300)}`;
  expect(res.status, where).to.be.below(500);
  expect(text, where).not.to.match(LEAKS);
  if (res.status >= 400 && res.headers.get('content-type')?.startsWith('application/json') && isOAuthTokenPath(path)) {
    // The OAuth endpoints answer errors the RFC 6749 §5.2 way, so OAuth clients understand them.
    expect((JSON.parse(text) as { error?: unknown }).error, where).to.be.a('string');
  } else if (res.status >= 400) {
    expect(res.headers.get('content-type') ?? '', where).to.match(/^application\/problem\+json/);
    const problem = JSON.parse(text) as { reason?: unknown; status?: unknown };
    expect(problem.reason, where).to.be.a('string');
    expect(problem.status, where).to.equal(res.status);
  }
  return res.status;
}

describe('fuzzing every published operation', function () {
  this.timeout(120_000);
  let app: TestApp;
  let agent: TestAgent;
  before(async () => {
    app = await startTestApp();
    agent = await buildAgent(app.service);
  });
  after(() => app.stop());

  it('when OPERATIONS is read, then it lists at least the routes of this build', () => {
    expect(OPERATIONS.length).to.be.at.least(3);
  });

  for (const op of OPERATIONS) {
    it(`when ${op.method.toUpperCase()} ${op.path} gets random paths, queries, headers and bodies, then no 5xx, no leak, errors are problem+json`, async () => {
      await fc.assert(
        fc.asyncProperty(pathFor(op), queryFor(op), headersFor(agent), bodyFor(op), async (path, query, headers, body) => {
          await check(app, op.method, query === '' ? path : `${path}?${query}`, headers, body);
        }),
        { numRuns: RUNS },
      );
    });

    it(`when ${op.path} is called with other methods, then no 5xx and problem+json`, async () => {
      await fc.assert(
        fc.asyncProperty(
          fc.constantFrom('get', 'post', 'put', 'patch', 'delete', 'options'),
          headersFor(agent),
          bodyFor(op),
          async (method, headers, body) => {
            await check(app, method, op.path.replace(/\{[^}]+\}/g, 'x'), headers, body);
          },
        ),
        { numRuns: Math.ceil(RUNS / 3) },
      );
    });
  }

  it('when random paths are requested anywhere, then no 5xx, no leak, errors are problem+json', async () => {
    const prefix = fc.constantFrom(
      '',
      '/api/v1',
      '/api/v1/agent',
      '/api/v1/orders',
      '/me',
      '/oauth',
      '/transactions',
      '/.well-known',
      '/openapi',
    );
    await fc.assert(
      fc.asyncProperty(
        prefix,
        fc.array(value, { maxLength: 4 }),
        fc.constantFrom('get', 'post', 'delete'),
        headersFor(agent),
        async (p, segments, method, headers) => {
          await check(app, method, `${p}/${segments.map(encodeURIComponent).join('/')}`, headers, { type: 'application/json', body: '{}' });
        },
      ),
      { numRuns: RUNS * 2 },
    );
  });

  it('when all of that has run, then no object prototype was polluted', () => {
    const probe = {} as Record<string, unknown>;
    expect(probe.isAdmin).to.equal(undefined);
    expect(Object.keys(Object.prototype)).to.deep.equal([]);
  });
});

/**
 * Writes with a valid credential: a request the service refuses (4xx) changes nothing the caller
 * owns (quotes, orders, ledger transactions and balances, wallet users, idempotency keys), and
 * `__proto__` / `constructor` keys in a body change nothing that is stored.
 */
describe('fuzzing the write operations with a valid credential', function () {
  this.timeout(180_000);
  let app: TestApp;
  let knex: Knex;
  let agent: TestAgent;
  let operatorKey: string;
  let tenant: TestTenant;
  let machine: string;
  let payer: { token: string; userId: string };
  let payee: { token: string; userId: string };
  /** Signs out when a logout is accepted, so the payer's token survives the fuzzing. */
  let leaver: { token: string; userId: string };
  let schedule: BusSchedule;
  const date = dateAhead(30);
  const contact = { name: 'Somchai P.', email: 'somchai@example.com', phone: '+66 81 000 0000' };
  /** Real ids to put in paths and bodies, so requests get past "not found" to the deeper rules. */
  const real = { quoteId: '', orderId: '', paymentId: '', topUpId: '' };

  const created = async <T>(res: Response): Promise<T> => {
    const text = await res.text();
    if (res.status !== 201 && res.status !== 200) throw new Error(`${res.url} answered ${res.status}: ${text}`);
    return JSON.parse(text) as T;
  };
  const busQuote = async (): Promise<string> =>
    (
      await created<{ id: string }>(
        await app.request(
          '/api/v1/express-bus/quotes',
          json('POST', { tripId: tripIdOf(schedule, date), passengers: 1 }, { 'x-api-key': agent.apiKey }),
        ),
      )
    ).id;

  before(async function () {
    // One proxy hop trusted, so each login attempt comes from an address of its own and the
    // failed ones never lock out the address other tests log in from.
    app = await startTestApp({ env: { TRUST_PROXY: '1' } });
    if (app.service.db === null) this.skip();
    knex = app.service.db.knex;
    agent = await buildAgent(app.service);
    await app.service.core.catalogue.seed.execute();
    const operator = buildOperator({ code: `FUZZ-${unique()}` });
    await app.service.core.admin.createOperator.execute(operator);
    operatorKey = (await app.service.core.admin.issueOperatorKey.execute(operator.code)).apiKey;
    schedule = await buildSchedule(app.service.ports.catalogue, { seatCapacity: 1_000 });
    tenant = await buildTenant(app.service);
    machine = await machineToken(app, tenant);
    payer = await delegatedToken(app, machine);
    payee = await delegatedToken(app, machine);
    leaver = await delegatedToken(app, machine);
    real.topUpId = (
      await created<{ id: string }>(
        await app.request(`/users/${payer.userId}/top-ups`, json('POST', { amount: 1_000, reference: 'fuzz' }, bearer(machine))),
      )
    ).id;
    real.paymentId = (
      await created<{ id: string }>(
        await app.request('/me/payments', json('POST', { amount: 400, reference: 'fuzz' }, bearer(payer.token))),
      )
    ).id;
    real.quoteId = await busQuote();
    const orderQuote = await busQuote();
    real.orderId = (
      await created<{ id: string }>(
        await app.request('/api/v1/orders', json('POST', { quoteId: orderQuote, contact }, { 'x-api-key': agent.apiKey })),
      )
    ).id;
  });
  after(async () => {
    if (app.service.db !== null) await dropTestSchedules(knex);
    await app.stop();
  });

  /** Everything a rejected write of these callers could have touched, as one row of numbers. */
  const snapshot = async (): Promise<Record<string, number>> => {
    const scopes = [
      `agent:${agent.agentId}`,
      `wallet:${tenant.tenantId}:machine:${tenant.clientId}`,
      `wallet:${tenant.tenantId}:user:${payer.userId}`,
      `wallet:${tenant.tenantId}:user:${payee.userId}`,
    ];
    const { rows } = await knex.raw(
      `SELECT
         (SELECT count(*) FROM quotes WHERE agent_id = :agent) AS quotes,
         (SELECT count(*) FROM orders WHERE agent_id = :agent) AS orders,
         (SELECT count(*) FROM orders WHERE agent_id = :agent AND status = 'CANCELLED') AS cancelled,
         (SELECT count(*) FROM api_keys WHERE agent_id = :agent) AS api_keys,
         (SELECT count(*) FROM api_keys WHERE agent_id = :agent AND status = 'REVOKED') AS revoked_api_keys,
         (SELECT coalesce(sum((seats->>'seats')::int), 0) FROM orders WHERE seats->>'scheduleId' = :schedule AND status IN ('ON_HOLD', 'PENDING', 'CONFIRMED')) AS seats_held,
         (SELECT count(*) FROM ledger_transactions WHERE tenant_id = :tenant) AS transactions,
         (SELECT coalesce(sum(refunded_amount), 0) FROM ledger_transactions WHERE tenant_id = :tenant) AS refunded,
         (SELECT count(*) FROM ledger_entries e JOIN ledger_transactions t ON t.id = e.transaction_id WHERE t.tenant_id = :tenant) AS entries,
         (SELECT coalesce(sum(balance), 0) FROM ledger_accounts WHERE tenant_id = :tenant AND kind = 'USER') AS balances,
         (SELECT count(*) FROM wallet_users WHERE tenant_id = :tenant) AS wallet_users,
         (SELECT count(*) FROM revoked_tokens WHERE tenant_id = :tenant) AS revoked_tokens,
         (SELECT count(*) FROM idempotency_keys WHERE scope IN (:s0, :s1, :s2, :s3)) AS idempotency_keys`,
      {
        agent: agent.agentId,
        schedule: schedule.id,
        tenant: tenant.tenantId,
        s0: scopes[0]!,
        s1: scopes[1]!,
        s2: scopes[2]!,
        s3: scopes[3]!,
      },
    );
    return Object.fromEntries(Object.entries(rows[0] as Record<string, unknown>).map(([k, v]) => [k, Number(v)]));
  };

  /** A valid credential for the operation's token rule. */
  const credentialFor = (op: OperationSpec): Record<string, string> => {
    switch (op.token) {
      case 'api-key':
        return { 'x-api-key': agent.apiKey };
      case 'operator-key':
        return { 'x-api-key': operatorKey };
      case 'machine':
      case 'either':
        return bearer(machine);
      case 'user':
        return bearer(op.path === '/auth/logout' ? leaver.token : payer.token);
      case 'none':
        if (op.path === '/auth/login') return { 'x-forwarded-for': testAddress() };
        return op.path.startsWith('/oauth/') ? { authorization: basicAuth(tenant.clientId, tenant.clientSecret) } : {};
    }
  };

  /** A body the operation would accept, as the base that mutations start from. */
  const validBodyFor = (op: OperationSpec): Record<string, unknown> => {
    const bodies: Record<string, Record<string, unknown>> = {
      '/api/v1/airport-transfer/quotes': {
        fromLocationId: 'loc_bkk',
        toLocationId: 'loc_pattaya_beach',
        pickupAt: `${date}T10:00:00+07:00`,
        passengers: 2,
      },
      '/api/v1/express-bus/quotes': { tripId: tripIdOf(schedule, date), passengers: 1 },
      '/api/v1/orders': { quoteId: real.quoteId, contact },
      '/oauth/token': { grant_type: 'client_credentials' },
      '/auth/delegated-token': { externalUserRef: `fuzz-${unique()}` },
      '/auth/login': { clientId: tenant.clientId, email: `nobody.${unique()}@example.com`, password: 'wrong password' },
      '/users': { externalUserRef: `fuzz-${unique()}` },
      '/users/{userId}/top-ups': { amount: 100, reference: 'fuzz' },
      '/transactions/{transactionId}/refunds': { amount: 100 },
      '/me/payments': { amount: 100, reference: 'fuzz' },
      '/me/transfers': { toUserId: payee.userId, amount: 100 },
    };
    return { ...(bodies[op.path] ?? {}) };
  };

  /** Path parameters: the caller's own ids, another kind's ids, or random values. */
  const paramValue = fc.oneof(
    fc.constantFrom(
      () => real.orderId,
      () => real.paymentId,
      () => real.topUpId,
      () => real.quoteId,
      () => payer.userId,
      () => payee.userId,
    ),
    value.map((v) => () => v),
  );
  const writePath = (op: OperationSpec) =>
    fc.array(paramValue, { minLength: 2, maxLength: 2 }).map((vals) => {
      let i = 0;
      return op.path.replace(/\{[^}]+\}/g, () => encodeURIComponent(vals[i++ % vals.length]!()));
    });

  /** A valid body with one field replaced, removed or added; or any of the random bodies. */
  const writeBody = (op: OperationSpec) =>
    fc.oneof(
      fc
        .tuple(
          fc.oneof(
            fc.constantFrom(
              'amount',
              'quoteId',
              'contact',
              'passengers',
              'toUserId',
              'tripId',
              'externalUserRef',
              'reference',
              'grant_type',
            ),
            printable,
          ),
          fc.option(jsonish, { nil: undefined }),
        )
        .map(([field, v]) => {
          const body = validBodyFor(op);
          if (v === undefined) delete body[field];
          else body[field] = v;
          const text = JSON.stringify(body);
          return op.request?.bodyContentType === 'application/x-www-form-urlencoded'
            ? {
                type: 'application/x-www-form-urlencoded',
                body: new URLSearchParams(
                  Object.entries(body).map(([k, x]): [string, string] => [k, typeof x === 'string' ? x : (JSON.stringify(x) ?? '')]),
                ).toString(),
              }
            : { type: 'application/json', body: text };
        }),
      bodyFor(op),
    );

  const otherHeaders = fc.record(
    {
      'idempotency-key': fc.oneof(
        printable.filter((k) => k.length > 0),
        fc.constant(`fuzz-${unique()}`),
      ),
      'x-request-id': printable,
      accept: fc.constantFrom('*/*', 'application/json', 'text/html'),
    },
    { requiredKeys: [] },
  );

  const writes = OPERATIONS.filter((op) => op.method !== 'get');

  for (const op of writes) {
    it(`when ${op.method.toUpperCase()} ${op.path} is refused (4xx) with a valid credential, then nothing the caller owns changed`, async () => {
      let refused = 0;
      let before = await snapshot();
      await fc.assert(
        fc.asyncProperty(writePath(op), writeBody(op), otherHeaders, async (path, body, headers) => {
          let credential = credentialFor(op);
          let ownKey: string | null = null;
          if (op.path.startsWith('/api/v1/keys/current/')) {
            // These act on the calling key itself (roll, report a leak): each run brings its own
            // key, revoked after the run so the agent stays within its 50 live keys.
            const issued = await issueKey(app.service, agent.agentId);
            ownKey = issued.keyId;
            credential = { 'x-api-key': issued.apiKey };
            before = await snapshot();
          }
          const status = await check(app, op.method, path, { ...headers, ...credential }, body);
          const after = await snapshot();
          if (ownKey !== null) await app.service.core.admin.revokeApiKey.execute(ownKey, 'leaked');
          if (status !== null && status >= 400 && status < 500) {
            refused += 1;
            const changed = Object.fromEntries(
              Object.keys(after)
                .filter((k) => after[k] !== before[k])
                .map((k) => [k, `${before[k]} -> ${after[k]}`]),
            );
            expect(changed, `${op.method.toUpperCase()} ${path} ${body.body.slice(0, 200)} -> ${status}`).to.deep.equal({});
          }
          // An accepted write (a valid mutation) moves the baseline.
          before = after;
        }),
        { numRuns: RUNS },
      );
      // Only an operation whose body has a required field is sure to be refused often by random
      // bodies. One without a body (report-leak) or with only optional fields (roll) accepts many
      // of them, and how many it refuses depends on the headers drawn.
      if (op.request?.body !== undefined && !op.request.body.safeParse({}).success) {
        expect(refused, 'refused requests').to.be.above(RUNS / 4);
      }
    });
  }

  /** JSON text of `value` with `__proto__` and `constructor` keys added to every object. */
  const polluted = (value: unknown): string => {
    if (Array.isArray(value)) return `[${value.map(polluted).join(',')}]`;
    if (value !== null && typeof value === 'object') {
      const own = Object.entries(value).map(([k, v]) => `${JSON.stringify(k)}:${polluted(v)}`);
      const extra = [
        '"__proto__":{"isAdmin":true,"amount":999999,"tenantId":"tnt_other","agentId":"agt_other","userId":"usr_other","status":"CANCELLED","price":{"amount":1,"currency":"USD"}}',
        '"constructor":{"prototype":{"isAdmin":true,"amount":999999}}',
      ];
      return `{${[...extra, ...own].join(',')}}`;
    }
    return JSON.stringify(value);
  };
  const postRaw = (path: string, text: string, headers: Record<string, string>) =>
    app.request(path, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: text });
  /** A stored row without the columns that differ between any two writes (ids, times, caller-chosen references). */
  const comparable = (row: Record<string, unknown>, volatile: readonly string[]) =>
    Object.fromEntries(Object.entries(row).filter(([k]) => !volatile.includes(k)));

  it('when write bodies carry __proto__ and constructor keys at every level, then what is stored is what the same body without them stores', async () => {
    // Each case: the same write twice, plain and polluted; the stored rows must match.
    const ledgerVolatile = ['id', 'reference', 'created_at', 'idempotency_key', 'refund_of'];
    const cases: Array<{
      name: string;
      write: (pollute: boolean) => Promise<Response>;
      stored: (id: string) => Promise<Record<string, unknown>>;
      volatile: string[];
    }> = [
      {
        name: 'wallet user',
        write: (p) =>
          postRaw(
            '/users',
            (p ? polluted : JSON.stringify)({ externalUserRef: 'proto-user' }).replace('proto-user', `proto-${unique()}`),
            bearer(machine),
          ),
        stored: async (id) => (await knex('wallet_users').where({ id }).first()) as Record<string, unknown>,
        volatile: ['id', 'external_user_ref', 'created_at'],
      },
      {
        name: 'top-up',
        write: (p) =>
          postRaw(`/users/${payee.userId}/top-ups`, (p ? polluted : JSON.stringify)({ amount: 300, reference: 'proto' }), {
            ...bearer(machine),
            'idempotency-key': `proto-${unique()}`,
          }),
        stored: async (id) => (await knex('ledger_transactions').where({ id }).first()) as Record<string, unknown>,
        volatile: ledgerVolatile,
      },
      {
        name: 'payment',
        write: (p) =>
          postRaw('/me/payments', (p ? polluted : JSON.stringify)({ amount: 20, reference: 'proto', description: 'proto' }), {
            ...bearer(payer.token),
            'idempotency-key': `proto-${unique()}`,
          }),
        stored: async (id) => (await knex('ledger_transactions').where({ id }).first()) as Record<string, unknown>,
        volatile: ledgerVolatile,
      },
      {
        name: 'transfer',
        write: (p) =>
          postRaw(
            '/me/transfers',
            (p ? polluted : JSON.stringify)({ toUserId: payee.userId, amount: 10, note: 'proto' }),
            bearer(payer.token),
          ),
        stored: async (id) => (await knex('ledger_transactions').where({ id }).first()) as Record<string, unknown>,
        volatile: ledgerVolatile,
      },
      {
        name: 'refund',
        write: (p) => postRaw(`/transactions/${payment.id}/refunds`, (p ? polluted : JSON.stringify)({ amount: 5 }), bearer(machine)),
        stored: async (id) => (await knex('ledger_transactions').where({ id }).first()) as Record<string, unknown>,
        volatile: ledgerVolatile,
      },
      {
        name: 'quote',
        write: (p) =>
          postRaw('/api/v1/express-bus/quotes', (p ? polluted : JSON.stringify)({ tripId: tripIdOf(schedule, date), passengers: 2 }), {
            'x-api-key': agent.apiKey,
          }),
        stored: async (id) => (await knex('quotes').where({ id }).first()) as Record<string, unknown>,
        volatile: ['id', 'created_at', 'expires_at'],
      },
      {
        name: 'order',
        write: async (p) =>
          postRaw(
            '/api/v1/orders',
            (p ? polluted : JSON.stringify)({ quoteId: await busQuote(), contact, passengers: [{ name: 'A' }], agentReference: 'proto' }),
            { 'x-api-key': agent.apiKey, 'idempotency-key': `proto-${unique()}` },
          ),
        stored: async (id) => (await knex('orders').where({ id }).first()) as Record<string, unknown>,
        volatile: ['id', 'quote_id', 'created_at', 'confirmed_at', 'idempotency_key'],
      },
    ];
    // The fuzzing above may have spent the payer's money and refunded the payment.
    expect(
      (await app.request(`/users/${payer.userId}/top-ups`, json('POST', { amount: 1_000, reference: 'proto' }, bearer(machine)))).status,
    ).to.equal(201);
    const payment = await created<{ id: string }>(
      await app.request('/me/payments', json('POST', { amount: 100, reference: 'proto' }, bearer(payer.token))),
    );
    for (const c of cases) {
      const plainRes = await c.write(false);
      const pollutedRes = await c.write(true);
      expect(pollutedRes.status, c.name).to.equal(plainRes.status);
      expect(plainRes.status, c.name).to.equal(201);
      const plain = await c.stored(((await plainRes.json()) as { id: string }).id);
      const dirty = await c.stored(((await pollutedRes.json()) as { id: string }).id);
      expect(comparable(dirty, c.volatile), c.name).to.deep.equal(comparable(plain, c.volatile));
      expect(JSON.stringify(dirty), c.name).not.to.match(/__proto__|constructor|isAdmin|999999|_other/);
    }
    expect(({} as Record<string, unknown>).isAdmin).to.equal(undefined);
  });
});
