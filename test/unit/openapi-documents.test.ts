import { expect } from 'chai';
import { z } from 'zod';
import type { OperationSpec, TokenRule } from '../../src/adapters/http/operation.js';
import { buildOpenApiDocument, OPENAPI_FILES, type OpenApiFile } from '../../src/adapters/http/openapi/documents.js';
import { effectiveResponses } from '../../src/adapters/http/openapi/responses.js';

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
  walletOp('none', '/oauth/token', { method: 'post' }),
  walletOp('none', '/auth/login', { method: 'post' }),
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
  paths: Record<string, Record<string, { operationId: string; security: Array<Record<string, string[]>>; 'x-token': string; responses: Record<string, any>; parameters?: any[] }>>;
  components: { securitySchemes: Record<string, { type: string; scheme?: string; in?: string; name?: string }> };
  servers: Array<{ url: string }>;
  info: { description: string; version: string; title: string };
};

const doc = (file: OpenApiFile, ops = sample, walletBasePath = ''): Doc => buildOpenApiDocument(file, ops, { walletBasePath }) as unknown as Doc;
const operationsOf = (d: Doc) => Object.entries(d.paths).flatMap(([path, item]) => Object.entries(item).map(([method, op]) => ({ path, method, ...op })));
const idsOf = (d: Doc) => operationsOf(d).map((o) => o.operationId).sort();
const reasonsOf = (response: any): string[] => response.content['application/problem+json'].schema.allOf[1].properties.reason.enum;

describe('OpenAPI documents', () => {
  it('when the backend file is built, then it holds exactly the machine, either and token-less wallet operations', () => {
    expect(idsOf(doc('wallet-backend-api.yaml'))).to.deep.equal(
      sample.filter((o) => o.surface === 'wallet' && ['machine', 'either', 'none'].includes(o.token)).map((o) => o.operationId).sort(),
    );
  });

  it('when the app file is built, then it holds exactly the user, either and token-less wallet operations', () => {
    expect(idsOf(doc('wallet-app-api.yaml'))).to.deep.equal(
      sample.filter((o) => o.surface === 'wallet' && ['user', 'either', 'none'].includes(o.token)).map((o) => o.operationId).sort(),
    );
  });

  it('when the full wallet and booking files are built, then each holds its surface and no platform operation', () => {
    expect(idsOf(doc('wallet-api.yaml'))).to.deep.equal(sample.filter((o) => o.surface === 'wallet').map((o) => o.operationId).sort());
    expect(idsOf(doc('booking-api.yaml'))).to.deep.equal(['bookingKeyed', 'bookingPublic']);
    for (const file of OPENAPI_FILES) expect(idsOf(doc(file))).not.to.include('platformHealth');
  });

  it('when a wallet operation is published, then security and x-token follow its token rule, with only the file’s schemes', () => {
    const full = doc('wallet-api.yaml');
    const byId = Object.fromEntries(operationsOf(full).map((o) => [o.operationId, o]));
    for (const op of sample.filter((o) => o.surface === 'wallet')) {
      const published = byId[op.operationId]!;
      expect(published['x-token'], op.operationId).to.equal(op.token);
      const expected = { machine: [{ machineToken: [] }], user: [{ userToken: [] }], either: [{ machineToken: [] }, { userToken: [] }], none: [] }[
        op.token as 'machine' | 'user' | 'either' | 'none'
      ];
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

  it('when an operation takes a key or a token, then its credential errors are documented without the author writing them', () => {
    const ops = operationsOf(doc('wallet-api.yaml'));
    const machine = ops.find((o) => o.path === '/users')!;
    expect(reasonsOf(machine.responses['401'])).to.deep.equal(['invalid-token']);
    expect(reasonsOf(machine.responses['403'])).to.deep.equal(['machine-token-required']);
    const user = ops.find((o) => o.path === '/me')!;
    expect(reasonsOf(user.responses['401'])).to.deep.equal(['invalid-token', 'not-a-wallet-user']);
    expect(user.responses['403']).to.equal(undefined);
    const either = ops.find((o) => o.path === '/transactions')!;
    expect(reasonsOf(either.responses['401'])).to.deep.equal(['invalid-token']);
    expect(either.responses['403']).to.equal(undefined);
    expect(ops.find((o) => o.path === '/oauth/token')!.responses['401']).to.equal(undefined);
    const booking = operationsOf(doc('booking-api.yaml'));
    const keyed = booking.find((o) => o.operationId === 'bookingKeyed')!;
    expect(reasonsOf(keyed.responses['401'])).to.deep.equal(['missing-api-key', 'invalid-api-key']);
    expect(reasonsOf(keyed.responses['403'])).to.deep.equal(['agent-suspended']);
    expect(reasonsOf(keyed.responses['429'])).to.deep.equal(['rate-limited']);
    expect(reasonsOf(keyed.responses['503'])).to.deep.equal(['service-unavailable']);
    expect(booking.find((o) => o.operationId === 'bookingPublic')!.responses['401']).to.equal(undefined);
  });

  it('when the author documents a status the service also adds, then the reasons merge, the author’s first, once each', () => {
    const op = walletOp('machine', '/users/{userId}/top-ups', {
      method: 'post',
      request: { body: z.object({ amount: z.number().int() }), headers: z.object({ 'Idempotency-Key': z.string().optional() }) },
      responses: { 201: { description: 'created', schema: z.object({}) }, 403: { description: 'no', reasons: ['machine-token-required', 'tenant-not-found'] } },
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

  it('when the author documents a status with its own body (OAuth errors), then it is left as written', () => {
    const oauthError = z.object({ error: z.string() });
    const op = walletOp('none', '/oauth/token', {
      method: 'post',
      request: { body: z.object({ grant_type: z.string() }), bodyContentType: 'application/x-www-form-urlencoded' },
      responses: { 200: { description: 'token', schema: z.object({}) }, 400: { description: 'RFC 6749', schema: oauthError } },
    });
    const responses = effectiveResponses(op);
    expect(responses[400]!.schema).to.equal(oauthError);
    expect(responses[400]!.reasons).to.equal(undefined);
    expect(responses[415]!.reasons).to.deep.equal(['unsupported-media-type']);
    const published = operationsOf(doc('wallet-api.yaml', [op])).find((o) => o.path === '/oauth/token')!;
    expect(Object.keys(published.responses['400'].content)).to.deep.equal(['application/json']);
  });

  it('when a path names a parameter its params schema lacks, then it is still declared, as a string', () => {
    const published = operationsOf(doc('wallet-api.yaml')).find((o) => o.path === '/transactions/{transactionId}')!;
    expect(published.parameters).to.deep.include({ schema: { type: 'string' }, required: true, name: 'transactionId', in: 'path' });
  });

  it('when WALLET_BASE_PATH is set, then wallet paths and servers carry it and booking ones do not', () => {
    const wallet = doc('wallet-api.yaml', sample, '/wallet');
    expect(Object.keys(wallet.paths)).to.include('/wallet/me/balance');
    expect(wallet.servers[0]!.url).to.equal('/wallet');
    const booking = doc('booking-api.yaml', sample, '/wallet');
    expect(Object.keys(booking.paths)).to.include('/api/v1/agent/account');
    expect(booking.servers[0]!.url).to.equal('/');
  });

  it('when a token-less operation names its caller, then it is only in that side’s file; a root one keeps its path under a base path', () => {
    const ops: OperationSpec[] = [
      walletOp('none', '/oauth/revoke', { method: 'post', caller: 'backend' }),
      walletOp('none', '/auth/login', { method: 'post', caller: 'app' }),
      walletOp('none', '/.well-known/oauth-authorization-server', { caller: 'backend', atRoot: true }),
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
