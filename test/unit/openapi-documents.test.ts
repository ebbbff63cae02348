import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { z } from 'zod';
import type { OperationSpec, TokenRule } from '../../src/adapters/http/operation.js';
import { buildOpenApiDocument, OPENAPI_FILES, type OpenApiFile } from '../../src/adapters/http/openapi/documents.js';
import { effectiveResponses } from '../../src/adapters/http/openapi/responses.js';
import { OPERATIONS } from '../../src/adapters/http/operations.js';

const walletOp = (token: TokenRule, path: string, extra: Partial<OperationSpec> = {}): OperationSpec => ({
  surface: 'wallet',
  method: 'get',
  path,
  operationId: `op${token}${path.replace(/\W/g, '')}`,
  summary: `${token} ${path}`,
  token,
  responses: { 200: { description: 'ok', schema: z.object({ ok: z.boolean() }) } },
  ...extra,
});

const sample: readonly OperationSpec[] = [
  walletOp('none', '/oauth/token', { method: 'post', audience: 'backend' }),
  walletOp('none', '/auth/login', { method: 'post', audience: 'app' }),
  walletOp('none', '/.well-known/jwks.json', { atRoot: true, audience: 'backend' }),
  walletOp('machine', '/users'),
  walletOp('machine', '/auth/delegated-token', { method: 'post' }),
  walletOp('user', '/me'),
  walletOp('user', '/me/balance'),
  walletOp('either', '/transactions'),
  walletOp('either', '/transactions/{transactionId}'),
  {
    surface: 'booking',
    method: 'get',
    path: '/api/v1/agent/account',
    operationId: 'bookingKeyed',
    summary: 'keyed',
    token: 'api-key',
    responses: { 200: { description: 'ok', schema: z.object({}) } },
  },
  {
    surface: 'booking',
    method: 'get',
    path: '/api/v1/express-bus/cities',
    operationId: 'bookingPublic',
    summary: 'public',
    token: 'none',
    responses: { 200: { description: 'ok', schema: z.object({}) } },
  },
  {
    surface: 'platform',
    method: 'get',
    path: '/healthz',
    operationId: 'platformHealth',
    summary: 'health',
    token: 'none',
    responses: { 200: { description: 'ok', schema: z.object({}) } },
  },
];

type Doc = {
  paths: Record<
    string,
    Record<
      string,
      {
        operationId: string;
        security: Array<Record<string, string[]>>;
        'x-token': string;
        responses: Record<string, any>;
        parameters?: any[];
      }
    >
  >;
  components: { securitySchemes: Record<string, { type: string; scheme?: string; in?: string; name?: string }> };
  servers: Array<{ url: string }>;
  info: { description: string; version: string; title: string };
};

const doc = (file: OpenApiFile, ops = sample, walletBasePath = ''): Doc =>
  buildOpenApiDocument(file, ops, { walletBasePath }) as unknown as Doc;
const operationsOf = (d: Doc) =>
  Object.entries(d.paths).flatMap(([path, item]) => Object.entries(item).map(([method, op]) => ({ path, method, ...op })));
const idsOf = (d: Doc) =>
  operationsOf(d)
    .map((o) => o.operationId)
    .sort();
const reasonsOf = (response: any): string[] => response.content['application/problem+json'].schema.allOf[1].properties.reason.enum;

describe('OpenAPI documents', () => {
  it('when the backend file is built, then it holds exactly the machine and either operations, the token endpoint and the JWKS, not the login', () => {
    expect(idsOf(doc('wallet-backend-api.yaml'))).to.deep.equal(
      sample
        .filter((o) => o.surface === 'wallet' && (['machine', 'either'].includes(o.token) || (o.token === 'none' && o.audience !== 'app')))
        .map((o) => o.operationId)
        .sort(),
    );
    const paths = Object.keys(doc('wallet-backend-api.yaml').paths);
    expect(paths).to.include.members(['/oauth/token', '/.well-known/jwks.json']);
    expect(paths).not.to.include('/auth/login');
  });

  it('when the app file is built, then it holds exactly the user and either operations and the login, nothing that takes a client secret', () => {
    expect(idsOf(doc('wallet-app-api.yaml'))).to.deep.equal(
      sample
        .filter((o) => o.surface === 'wallet' && (['user', 'either'].includes(o.token) || o.audience === 'app'))
        .map((o) => o.operationId)
        .sort(),
    );
    const paths = Object.keys(doc('wallet-app-api.yaml').paths);
    expect(paths).to.include('/auth/login');
    expect(paths).not.to.include.members(['/oauth/token']);
    expect(paths).not.to.include('/oauth/token');
  });

  it('when the full wallet and booking files are built, then each holds its surface and no platform operation', () => {
    expect(idsOf(doc('wallet-api.yaml'))).to.deep.equal(
      sample
        .filter((o) => o.surface === 'wallet')
        .map((o) => o.operationId)
        .sort(),
    );
    expect(idsOf(doc('booking-api.yaml'))).to.deep.equal(['bookingKeyed', 'bookingPublic']);
    for (const file of OPENAPI_FILES) expect(idsOf(doc(file))).not.to.include('platformHealth');
  });

  it('when a wallet operation is published, then security and x-token follow its token rule, with only the file’s schemes', () => {
    const full = doc('wallet-api.yaml');
    const byId = Object.fromEntries(operationsOf(full).map((o) => [o.operationId, o]));
    for (const op of sample.filter((o) => o.surface === 'wallet')) {
      const published = byId[op.operationId]!;
      expect(published['x-token'], op.operationId).to.equal(op.token);
      const expected = {
        machine: [{ machineToken: [] }],
        user: [{ userToken: [] }],
        either: [{ machineToken: [] }, { userToken: [] }],
        none: [],
      }[op.token as 'machine' | 'user' | 'either' | 'none'];
      expect(published.security, op.operationId).to.deep.equal(expected);
    }
    expect(full.components.securitySchemes.machineToken).to.include({ type: 'http', scheme: 'bearer' });
    expect(full.components.securitySchemes.userToken).to.include({ type: 'http', scheme: 'bearer' });
    const backend = doc('wallet-backend-api.yaml');
    expect(Object.keys(backend.components.securitySchemes)).to.deep.equal(['machineToken']);
    expect(operationsOf(backend).find((o) => o.path === '/transactions')!.security).to.deep.equal([{ machineToken: [] }]);
    const app = doc('wallet-app-api.yaml');
    expect(Object.keys(app.components.securitySchemes)).to.deep.equal(['userToken']);
    expect(operationsOf(app).find((o) => o.path === '/transactions')!.security).to.deep.equal([{ userToken: [] }]);
  });

  it('when a booking operation is published, then keyed ones take the X-API-KEY scheme and public ones no security', () => {
    const d = doc('booking-api.yaml');
    expect(d.components.securitySchemes.apiKey).to.deep.include({ type: 'apiKey', in: 'header', name: 'X-API-KEY' });
    const keyed = operationsOf(d).find((o) => o.operationId === 'bookingKeyed')!;
    expect(keyed.security).to.deep.equal([{ apiKey: [] }]);
    expect(keyed['x-token']).to.equal('api-key');
    const open = operationsOf(d).find((o) => o.operationId === 'bookingPublic')!;
    expect(open.security).to.deep.equal([]);
    expect(open['x-token']).to.equal('none');
  });

  it('when any published file is read, then every operation and webhook declares its security: schemes the file defines, or [] when token-less', () => {
    const methods = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];
    for (const file of OPENAPI_FILES) {
      // The committed file, as published, and the one the operations build now.
      for (const [source, d] of [
        ['committed', parse(readFileSync(new URL(`../../openapi/${file}`, import.meta.url), 'utf8'))],
        ['built', buildOpenApiDocument(file, OPERATIONS)],
      ] as const) {
        const schemes = Object.keys(d.components?.securitySchemes ?? {});
        let checked = 0;
        for (const section of ['paths', 'webhooks'] as const) {
          for (const [path, item] of Object.entries((d[section] ?? {}) as Record<string, Record<string, any>>)) {
            for (const method of methods.filter((m) => item[m] !== undefined)) {
              const op = item[method];
              const where = `${source} ${file} ${section} ${method} ${path}`;
              expect(op.security, where).to.be.an('array');
              for (const requirement of op.security as Array<Record<string, unknown>>) {
                expect(Object.keys(requirement), where).to.have.length.above(0);
                for (const name of Object.keys(requirement)) expect(schemes, where).to.include(name);
              }
              // Token-less means declared empty, never left out.
              if (op['x-token'] === 'none' || section === 'webhooks') expect(op.security, where).to.deep.equal([]);
              else expect(op.security, where).to.have.length.above(0);
              checked += 1;
            }
          }
        }
        expect(checked, `${source} ${file}`).to.be.above(0);
      }
    }
  });

  it('when an operation takes a key or a token, then its credential errors are documented without the author writing them', () => {
    const ops = operationsOf(doc('wallet-api.yaml'));
    const machine = ops.find((o) => o.path === '/users')!;
    // Every wallet token may be DPoP-bound: a bound one without a valid proof is refused as such.
    expect(reasonsOf(machine.responses['401'])).to.deep.equal(['invalid-token', 'invalid-dpop-proof']);
    expect(reasonsOf(machine.responses['403'])).to.deep.equal(['machine-token-required']);
    const user = ops.find((o) => o.path === '/me')!;
    expect(reasonsOf(user.responses['401'])).to.deep.equal(['invalid-token', 'not-a-wallet-user', 'invalid-dpop-proof']);
    expect(user.responses['403']).to.equal(undefined);
    const either = ops.find((o) => o.path === '/transactions')!;
    expect(reasonsOf(either.responses['401'])).to.deep.equal(['invalid-token', 'invalid-dpop-proof']);
    expect(either.responses['403']).to.equal(undefined);
    expect(ops.find((o) => o.path === '/oauth/token')!.responses['401']).to.equal(undefined);
    const booking = operationsOf(doc('booking-api.yaml'));
    const keyed = booking.find((o) => o.operationId === 'bookingKeyed')!;
    expect(reasonsOf(keyed.responses['401'])).to.deep.equal(['missing-api-key', 'invalid-api-key']);
    // A keyed operation's key may be pinned to addresses (its scope is declared: none here).
    expect(reasonsOf(keyed.responses['403'])).to.deep.equal(['agent-suspended', 'ip-not-allowed']);
    expect(reasonsOf(keyed.responses['429'])).to.deep.equal(['rate-limited']);
    expect(reasonsOf(keyed.responses['503'])).to.deep.equal(['service-unavailable', 'shutting-down']);
    expect(booking.find((o) => o.operationId === 'bookingPublic')!.responses['401']).to.equal(undefined);
  });

  it('when the author documents a status the service also adds, then the reasons merge, the author’s first, once each', () => {
    const op = walletOp('machine', '/users/{userId}/top-ups', {
      method: 'post',
      request: { body: z.object({ amount: z.number().int() }), headers: z.object({ 'Idempotency-Key': z.string().optional() }) },
      responses: {
        201: { description: 'created', schema: z.object({}) },
        403: { description: 'no', reasons: ['machine-token-required', 'tenant-not-found'] },
      },
    });
    const responses = effectiveResponses(op);
    expect(responses[403]!.reasons).to.deep.equal(['machine-token-required', 'tenant-not-found']);
    expect(responses[403]!.description).to.equal('no');
    expect(responses[400]!.reasons).to.deep.equal(['malformed-json', 'invalid-request']);
    expect(responses[413]!.reasons).to.deep.equal(['payload-too-large']);
    expect(responses[415]!.reasons).to.deep.equal(['unsupported-media-type']);
    expect(responses[409]!.reasons).to.deep.equal(['idempotency-key-in-use']);
    expect(responses[422]!.reasons).to.deep.equal(['idempotency-key-reused']);
  });

  it('when the author documents its own request errors (OAuth), then they are left as written and only the platform’s problems are added beside them', () => {
    const oauthError = z.object({ error: z.string() });
    const op = walletOp('none', '/oauth/token', {
      method: 'post',
      oauthErrors: true,
      request: { body: z.object({ grant_type: z.string() }), bodyContentType: 'application/x-www-form-urlencoded' },
      responses: { 200: { description: 'token', schema: z.object({}) }, 400: { description: 'RFC 6749', schema: oauthError } },
    });
    const responses = effectiveResponses(op);
    expect(responses[400]!.schema).to.equal(oauthError);
    // The header check answers before the route, as problem+json.
    expect(responses[400]!.reasons).to.deep.equal(['invalid-request']);
    expect(responses[413]).to.equal(undefined);
    expect(responses[415]).to.equal(undefined);
    const published = operationsOf(doc('wallet-api.yaml', [op])).find((o) => o.path === '/oauth/token')!;
    expect(Object.keys(published.responses['400'].content)).to.deep.equal(['application/json', 'application/problem+json']);
    // Limits and faults are answered the OAuth way too, never as problem+json.
    for (const [status, code] of [
      ['429', 'temporarily_unavailable'],
      ['500', 'server_error'],
      ['503', 'temporarily_unavailable'],
    ] as const) {
      expect(responses[Number(status)]!.schema!.safeParse({ error: code, error_description: 'x' }).success, status).to.equal(true);
      if (status === '503') continue;
      expect(Object.keys(published.responses[status].content), status).to.deep.equal(['application/json']);
      expect(responses[Number(status)]!.reasons, status).to.equal(undefined);
    }
    // A stopping service refuses before any route, as problem+json, beside the OAuth way.
    expect(Object.keys(published.responses['503'].content)).to.deep.equal(['application/json', 'application/problem+json']);
    expect(responses[503]!.reasons).to.deep.equal(['shutting-down']);
    expect(published.responses['429'].headers).to.have.property('Retry-After');
  });

  it('when an operation takes no parameters, then the 400 of a repeated X-API-KEY or Authorization header is documented', () => {
    for (const [file, path] of [
      ['booking-api.yaml', '/api/v1/agent/account'],
      ['wallet-api.yaml', '/me'],
    ] as const) {
      const published = operationsOf(doc(file)).find((o) => o.path === path)!;
      expect(reasonsOf(published.responses['400']), path).to.deep.equal(['invalid-request']);
      expect(published.responses['400'].description, path).to.include('X-API-KEY');
    }
  });

  it('when an operation takes an Idempotency-Key, then its success declares Idempotent-Replayed; limited ones declare RateLimit-*', () => {
    const op = walletOp('user', '/me/payments', {
      method: 'post',
      rateLimit: 'payments',
      request: { body: z.object({}), headers: z.object({ 'Idempotency-Key': z.string().optional() }) },
      responses: { 201: { description: 'made', schema: z.object({}) } },
    });
    const published = operationsOf(doc('wallet-api.yaml', [op]))[0]!;
    expect(Object.keys(published.responses['201'].headers)).to.include.members([
      'Idempotent-Replayed',
      'RateLimit-Limit',
      'RateLimit-Remaining',
      'RateLimit-Reset',
    ]);
    expect(Object.keys(published.responses['429'].headers)).to.include.members([
      'Retry-After',
      'RateLimit-Limit',
      'RateLimit-Remaining',
      'RateLimit-Reset',
    ]);
    const unlimited = operationsOf(doc('wallet-api.yaml')).find((o) => o.path === '/me')!;
    expect(Object.keys(unlimited.responses['200'].headers)).not.to.include('RateLimit-Limit');
    const booking = operationsOf(doc('booking-api.yaml')).find((o) => o.path === '/api/v1/agent/account')!;
    expect(Object.keys(booking.responses['200'].headers)).to.include('RateLimit-Remaining');
  });

  it('when a path names a parameter its params schema lacks, then it is still declared, as a string', () => {
    const published = operationsOf(doc('wallet-api.yaml')).find((o) => o.path === '/transactions/{transactionId}')!;
    expect(published.parameters).to.deep.include({ schema: { type: 'string' }, required: true, name: 'transactionId', in: 'path' });
  });

  it('when WALLET_BASE_PATH is set, then wallet paths carry it once, the servers are the root, and the JWKS stays at the root', () => {
    const wallet = doc('wallet-api.yaml', sample, '/wallet');
    expect(Object.keys(wallet.paths)).to.include.members(['/wallet/me/balance', '/.well-known/jwks.json']);
    expect(Object.keys(wallet.paths).some((p) => p.startsWith('/wallet/wallet'))).to.equal(false);
    for (const file of OPENAPI_FILES) expect(doc(file, sample, '/wallet').servers.map((s) => s.url)).to.deep.equal(['/']);
    const booking = doc('booking-api.yaml', sample, '/wallet');
    expect(Object.keys(booking.paths)).to.include('/api/v1/agent/account');
  });

  it('when a token-less operation names its caller, then it is only in that side’s file; a root one keeps its path under a base path', () => {
    const ops: OperationSpec[] = [
      walletOp('none', '/oauth/revoke', { method: 'post', audience: 'backend' }),
      walletOp('none', '/auth/login', { method: 'post', audience: 'app' }),
      walletOp('none', '/.well-known/oauth-authorization-server', { audience: 'backend', atRoot: true }),
      walletOp('user', '/auth/logout', { method: 'post' }),
    ];
    expect(idsOf(doc('wallet-backend-api.yaml', ops))).to.deep.equal([ops[0]!.operationId, ops[2]!.operationId].sort());
    expect(idsOf(doc('wallet-app-api.yaml', ops))).to.deep.equal([ops[1]!.operationId, ops[3]!.operationId].sort());
    expect(idsOf(doc('wallet-api.yaml', ops))).to.deep.equal(ops.map((o) => o.operationId).sort());
    const paths = Object.keys(doc('wallet-api.yaml', ops, '/wallet').paths);
    expect(paths).to.include.members(['/.well-known/oauth-authorization-server', '/wallet/oauth/revoke']);
  });

  it('when the operation list is reordered, then the documents are the same', () => {
    for (const file of OPENAPI_FILES) expect(doc(file, [...sample].reverse())).to.deep.equal(doc(file));
  });
});
