import { expect } from 'chai';
import fc from 'fast-check';
import { OPERATIONS } from '../../src/adapters/http/operations.js';
import type { OperationSpec } from '../../src/adapters/http/operation.js';
import { startTestApp, type TestApp } from '../support/app.js';
import { buildAgent, type TestAgent } from '../support/builders.js';

/**
 * Random bodies, query strings, headers and paths against every published operation (so routes
 * added to OPERATIONS later are covered without touching this file): never a 5xx, never a stack
 * trace or SQL text, and every error is problem+json with a reason.
 */
const RUNS = Number(process.env.FUZZ_RUNS ?? 60);

const LEAKS = /\bat \S+ \(|\bat \S+:\d+:\d+|node_modules|\.ts:\d+|\b(SELECT|INSERT INTO|UPDATE \w+ SET|DELETE FROM)\b|\bknex\b|SQLSTATE|syntax error at|TypeError|ReferenceError|RangeError|SyntaxError/;

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
    fc.dictionary(fc.oneof(printable, fc.constantFrom('__proto__', 'constructor', 'prototype', 'amount', 'agentId', 'channel', 'price')), tie('any') as fc.Arbitrary<unknown>, { maxKeys: 6 }),
    fc.array(tie('any') as fc.Arbitrary<unknown>, { maxLength: 4 }),
    value,
    fc.integer(),
    fc.double(),
  ),
})).any;

/** A body: JSON of any shape, not JSON at all, or a known field set with random values. */
const bodyFor = (op: OperationSpec) => {
  const fields = Object.keys((op.request?.body as unknown as { shape?: Record<string, unknown> } | undefined)?.shape ?? {});
  const shaped = fields.length > 0 ? fc.record(Object.fromEntries(fields.map((f) => [f, jsonish])) as Record<string, fc.Arbitrary<unknown>>, { requiredKeys: [] }) : jsonish;
  return fc.oneof(
    shaped.map((b) => ({ type: 'application/json', body: JSON.stringify(b) ?? 'null' })),
    jsonish.map((b) => ({ type: 'application/json', body: JSON.stringify(b) ?? 'null' })),
    fc.record({ type: fc.constantFrom('application/json', 'text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data', 'application/xml', ''), body: fc.string({ maxLength: 200 }) }),
    fc.constant({ type: 'application/json', body: `{"pad":"${'x'.repeat(70 * 1024)}"}` }),
    fc.constant({ type: 'application/json', body: '{"__proto__":{"isAdmin":true},"constructor":{"prototype":{"isAdmin":true}}}' }),
  );
};

const queryFor = (op: OperationSpec) => {
  const known = Object.keys(op.request?.query?.shape ?? {});
  const key = fc.oneof(...(known.length > 0 ? [fc.constantFrom(...known)] : []), printable, fc.constantFrom('__proto__', 'constructor', 'limit', 'cursor', 'q[]', 'a[b]'));
  return fc.oneof(
    fc.array(fc.tuple(key, value), { maxLength: 6 }).map((pairs) => new URLSearchParams(pairs).toString()),
    fc.constantFrom('%', '%zz', '&&==', 'q=%E0%A4%A', 'q=a&q=b&q=c', 'limit=1&limit=2', `q=${'a'.repeat(5000)}`),
  );
};

const pathFor = (op: OperationSpec) =>
  fc
    .tuple(fc.array(value, { minLength: 4, maxLength: 4 }), fc.option(value, { nil: undefined }))
    .map(([vals, extra]) => {
      let i = 0;
      const filled = op.path.replace(/\{[^}]+\}/g, () => encodeURIComponent(vals[i++ % vals.length] ?? ''));
      return extra === undefined ? filled : `${filled}/${encodeURIComponent(extra)}`;
    });

type Creds = { apiKey: string };
const headersFor = (creds: Creds) =>
  fc.record(
    {
      'x-api-key': fc.oneof(fc.constant(creds.apiKey), printable, fc.constant(`${creds.apiKey}x`)),
      authorization: fc.oneof(printable, printable.map((s) => `Bearer ${s}`), fc.constant('Bearer eyJhbGciOiJub25lIn0.eyJzdWIiOiJ4In0.'), printable.map((s) => `Basic ${Buffer.from(s).toString('base64')}`)),
      'idempotency-key': printable,
      'x-request-id': printable,
      accept: fc.constantFrom('*/*', 'text/html', 'application/xml', 'application/json'),
      'accept-encoding': fc.constantFrom('gzip', 'br', 'identity', 'x'),
      'content-encoding': fc.constantFrom('gzip', 'deflate', 'x-unknown'),
    },
    { requiredKeys: [] },
  );

const isOAuthTokenPath = (path: string): boolean => /^\/oauth\/token\/?(\?|$)/.test(path.replace(/^\/[A-Za-z0-9._-]+(?=\/oauth\/)/, ''));

async function check(app: TestApp, method: string, path: string, headers: Record<string, string>, body?: { type: string; body: string }): Promise<void> {
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
    if (err instanceof TypeError) return;
    throw err;
  }
  const text = await res.text();
  const where = `${method.toUpperCase()} ${path} -> ${res.status} ${text.slice(0, 300)}`;
  expect(res.status, where).to.be.below(500);
  expect(text, where).not.to.match(LEAKS);
  if (res.status >= 400 && res.headers.get('content-type')?.startsWith('application/json') && isOAuthTokenPath(path)) {
    // The token endpoint answers errors the RFC 6749 §5.2 way, so OAuth clients understand them.
    expect((JSON.parse(text) as { error?: unknown }).error, where).to.be.a('string');
  } else if (res.status >= 400) {
    expect(res.headers.get('content-type') ?? '', where).to.match(/^application\/problem\+json/);
    const problem = JSON.parse(text) as { reason?: unknown; status?: unknown };
    expect(problem.reason, where).to.be.a('string');
    expect(problem.status, where).to.equal(res.status);
  }
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
        fc.asyncProperty(fc.constantFrom('get', 'post', 'put', 'patch', 'delete', 'options'), headersFor(agent), bodyFor(op), async (method, headers, body) => {
          await check(app, method, op.path.replace(/\{[^}]+\}/g, 'x'), headers, body);
        }),
        { numRuns: Math.ceil(RUNS / 3) },
      );
    });
  }

  it('when random paths are requested anywhere, then no 5xx, no leak, errors are problem+json', async () => {
    const prefix = fc.constantFrom('', '/api/v1', '/api/v1/agent', '/api/v1/orders', '/me', '/oauth', '/transactions', '/.well-known', '/openapi');
    await fc.assert(
      fc.asyncProperty(prefix, fc.array(value, { maxLength: 4 }), fc.constantFrom('get', 'post', 'delete'), headersFor(agent), async (p, segments, method, headers) => {
        await check(app, method, `${p}/${segments.map(encodeURIComponent).join('/')}`, headers, { type: 'application/json', body: '{}' });
      }),
      { numRuns: RUNS * 2 },
    );
  });

  it('when all of that has run, then no object prototype was polluted', () => {
    const probe = {} as Record<string, unknown>;
    expect(probe.isAdmin).to.equal(undefined);
    expect(Object.keys(Object.prototype)).to.deep.equal([]);
  });
});
