import { OpenAPIRegistry, OpenApiGeneratorV31, type RouteConfig } from '@asteasolutions/zod-to-openapi';
import type { HeaderObject, SecuritySchemeObject } from 'openapi3-ts/oas31';
import { z } from 'zod';
import { stringify } from 'yaml';
import type { OperationSpec, ResponseSpec, TokenRule } from '../operation.js';
import { problemExampleFor, problemJsonSchemaFor, problemSchema } from './problem.js';
import { effectiveResponses } from './responses.js';
import { demoExamples, EXAMPLE_LEAD_DAYS, exampleDayOf, type OperationExamples } from './examples.js';
import { eventBodySchema, WEBHOOK_EVENTS, WEBHOOK_SIGNING_TEXT, type WebhookEventSpec } from '../webhooks/webhooks.operations.js';

/** The published files, served at `/openapi/<name>` and committed under `openapi/`. */
export const OPENAPI_FILES = ['booking-api.yaml', 'operator-api.yaml', 'wallet-api.yaml', 'wallet-backend-api.yaml', 'wallet-app-api.yaml'] as const;
export type OpenApiFile = (typeof OPENAPI_FILES)[number];

/** The version of the published interface (the booking surface is `/api/v1`). */
export const API_VERSION = '1.0.0';

/**
 * Is this wallet operation in the tenant backend's file? Those a machine token may call, and the
 * token-less ones a backend uses (the token endpoint, the JWKS): every token-less one but the
 * wallet app's password login.
 */
export const machineMayCall = (op: OperationSpec): boolean =>
  op.surface === 'wallet' && (op.token === 'machine' || op.token === 'either' || (op.token === 'none' && op.audience !== 'app'));

/**
 * Is this wallet operation in the wallet app's file? Those a user token may call, and the one
 * token-less operation an app uses: the password login. Nothing that takes a client secret.
 */
export const userMayCall = (op: OperationSpec): boolean =>
  op.surface === 'wallet' && (op.token === 'user' || op.token === 'either' || (op.token === 'none' && op.audience === 'app'));

/** Which operations each file holds. Platform operations (health, docs) are in none of them. */
export const FILE_MEMBERSHIP: Readonly<Record<OpenApiFile, (op: OperationSpec) => boolean>> = {
  'booking-api.yaml': (op) => op.surface === 'booking',
  'operator-api.yaml': (op) => op.surface === 'operator',
  'wallet-api.yaml': (op) => op.surface === 'wallet',
  'wallet-backend-api.yaml': machineMayCall,
  'wallet-app-api.yaml': userMayCall,
};

type Scheme = 'apiKey' | 'operatorKey' | 'machineToken' | 'userToken';

const SECURITY_SCHEMES: Readonly<Record<Scheme, SecuritySchemeObject>> = {
  apiKey: {
    type: 'apiKey',
    in: 'header',
    name: 'X-API-KEY',
    description: 'The agent’s API key (`pbk_…`), issued by the operator. It is the only source of booking identity: agent, channel, pricing and entitlements all follow from it.',
  },
  operatorKey: {
    type: 'apiKey',
    in: 'header',
    name: 'X-API-KEY',
    description: 'The operator’s key (`pbo_…`), issued with `operator key issue`. An agent’s key is refused here, as an operator key is on the booking API.',
  },
  machineToken: {
    type: 'http',
    scheme: 'bearer',
    bearerFormat: 'JWT',
    description: 'A machine token of the tenant’s backend, from `POST /oauth/token` (client credentials). Lifetime `MACHINE_TOKEN_TTL_SECONDS` (3600 s by default). A DPoP-bound token (`token_type: DPoP`) is sent as `Authorization: DPoP <token>` with a `DPoP` proof for each request (RFC 9449).',
  },
  userToken: {
    type: 'http',
    scheme: 'bearer',
    bearerFormat: 'JWT',
    description: 'A user token of one wallet holder, from `POST /auth/login` (`amr: ["pwd"]`) or issued by the tenant’s backend with `POST /auth/delegated-token` (`amr: ["tenant_delegated"]`). Lifetime `USER_TOKEN_TTL_SECONDS` (900 s by default); no refresh token. A DPoP-bound token (`token_type: DPoP`) is sent as `Authorization: DPoP <token>` with a `DPoP` proof for each request (RFC 9449).',
  },
};

/** The schemes an operation accepts, given the schemes the file defines (OR of the entries). */
function securityOf(token: TokenRule, available: readonly Scheme[]): Array<Record<string, string[]>> {
  const wanted: Scheme[] =
    token === 'api-key' ? ['apiKey'] : token === 'operator-key' ? ['operatorKey'] : token === 'machine' ? ['machineToken'] : token === 'user' ? ['userToken'] : token === 'either' ? ['machineToken', 'userToken'] : [];
  return wanted.filter((s) => available.includes(s)).map((s) => ({ [s]: [] }));
}

/** Every tag an operation may carry, with its description (each operation carries exactly one). */
export const TAG_DESCRIPTIONS: Readonly<Record<string, string>> = {
  catalogue: 'Public autocomplete over the catalogue: no key needed',
  trips: 'Express-bus departures of one day, with the seats left and the caller’s price',
  quotes: 'Price an airport transfer or express-bus seats, and read a quote back',
  orders: 'Book or hold a quote, confirm or release a hold, read and list orders, fetch a voucher, preview and make a cancellation',
  'operator-orders': 'The operator’s own orders: list, read, confirm with its reference, reject, cancel',
  'operator-vouchers': 'Redeem the voucher a traveller shows, once',
  account: 'The calling agent, as its key resolves',
  keys: 'The calling agent’s API keys: list, create, revoke, roll, report leaked',
  'security-events': 'The security trail: what happened to the caller’s credentials, and who did it',
  auth: 'Tokens: the tenant backend’s machine token, user tokens (login or delegated), revocation, introspection and the keys that verify them',
  users: 'The tenant’s wallet users, as its backend manages them',
  me: 'The wallet holder of the user token: who, how much, pay and send',
  money: 'What the tenant’s backend moves: top-ups and refunds',
  transactions: 'The transactions the caller may see, one by one, as a list or summed up',
  authorizations: 'Money held from a wallet holder’s balance for a later charge: authorize, capture in parts, void, read',
  'test-helpers':
    'Sandbox only: what a test agent or tenant may do to its own data that live data never allows, standing in for the operator and the clock (a live caller gets 404)',
  webhooks: 'Signed event deliveries (Standard Webhooks 1.0) to endpoints the caller registers',
  platform: 'Health, readiness and this reference',
};

const COMMON_HEADERS: Readonly<Record<string, HeaderObject>> = {
  'X-Request-Id': {
    description: 'The caller’s `X-Request-Id` when it was sane (1..128 of `[A-Za-z0-9._:-]`), else one the service made. Quote it to support.',
    schema: { type: 'string' },
  },
};

interface FileInfo {
  readonly title: string;
  readonly description: string;
  readonly schemes: readonly Scheme[];
}

const examplesText = (asOf: string): string =>
  `Examples use the demo data that the first \`npm start\` seeds (the Thailand catalogue, the demo agent, the demo wallet tenant and its ` +
  `user somchai@demo-wallet.example) and travel ${EXAMPLE_LEAD_DAYS} days after the day the file was generated (${asOf}, also in ` +
  '`info.x-examples-as-of`): the server generates its files again each day. Ids of things you create (quotes, orders, users, transactions) ' +
  'and the credentials are shaped like real ones: put in those the service gave you.';

const ERRORS_TEXT =
  'Every error is `application/problem+json` (schema `Problem`) with a stable kebab-case `reason`: branch on `reason`, never on `message`. ' +
  'Each response below lists every `reason` it can carry. Every response carries `X-Request-Id`.';

const TOKEN_TEXT =
  'Each operation names the token it takes in `security` and in the extension `x-token`: `machine` (the tenant backend’s machine token), ' +
  '`user` (a wallet holder’s user token), `either`, or `none` (no bearer token; the token endpoints).';

const FILE_INFO: Readonly<Record<OpenApiFile, FileInfo>> = {
  'booking-api.yaml': {
    title: 'Partner Booking API',
    description:
      'Travel agents quote and book airport transfers and express-bus seats. Every operation under `/api/v1/` takes the agent’s key in `X-API-KEY` ' +
      '(`x-token: api-key`), except the two public autocomplete routes (`x-token: none`). Authentication runs before routing, so an unknown path ' +
      'without a key is 401, not 404. A caller never sends its channel, agent id or price: they follow from the key, and such fields are ignored.\n\n' +
      ERRORS_TEXT,
    schemes: ['apiKey'],
  },
  'operator-api.yaml': {
    title: 'Operator API',
    description:
      'Operators, the companies that run the trips, answer the orders of their own products under `/operator/v1/`: list them, confirm a ' +
      'PENDING one with their reference, reject it with a reason, cancel a confirmed one with a full refund. Every operation takes the ' +
      'operator’s key in `X-API-KEY` (`x-token: operator-key`). An operator sees what it needs to run the trip and who booked it, never ' +
      'the agent’s price, channel, key or reference; another operator’s order is 404.\n\n' +
      ERRORS_TEXT,
    schemes: ['operatorKey'],
  },
  'wallet-api.yaml': {
    title: 'Wallet API',
    description:
      'Every wallet operation: those a tenant backend calls with its machine token and those a wallet app calls with a user token. ' +
      TOKEN_TEXT +
      ' `wallet-backend-api.yaml` and `wallet-app-api.yaml` hold the two halves.\n\n' +
      ERRORS_TEXT,
    schemes: ['machineToken', 'userToken'],
  },
  'wallet-backend-api.yaml': {
    title: 'Wallet API — tenant backend',
    description:
      'Exactly the wallet operations a machine token may call: those taking a machine token (`x-token: machine`), those taking either token ' +
      '(`either`; a machine token sees the whole tenant), and the token-less ones a backend uses (`none`): `POST /oauth/token`, where ' +
      'the backend gets its machine token with its client secret, and `GET /.well-known/jwks.json`, the keys that verify wallet tokens. ' +
      'Only the `machineToken` scheme is listed here.\n\n' +
      ERRORS_TEXT,
    schemes: ['machineToken'],
  },
  'wallet-app-api.yaml': {
    title: 'Wallet API — wallet app',
    description:
      'Exactly the wallet operations a user token may call: those taking a user token (`x-token: user`), those taking either token ' +
      '(`either`; a user token sees only what its holder is party to), and `POST /auth/login` (`none`), where a wallet holder signs in. ' +
      'A client secret belongs on the tenant’s backend, never in an app: an app gets its user token by login or ' +
      'from its backend (`POST /auth/delegated-token`). Only the `userToken` scheme is listed here.\n\n' +
      ERRORS_TEXT,
    schemes: ['userToken'],
  },
};

/** The path an operation is mounted at: wallet paths under `WALLET_BASE_PATH`, except those at the root. */
export const publishedPath = (op: OperationSpec, walletBasePath: string): string =>
  op.surface === 'wallet' && op.atRoot !== true ? `${walletBasePath}${op.path}` : op.path;

/** Options of one generation: where the wallet is mounted in this deployment. */
export interface OpenApiOptions {
  /** `WALLET_BASE_PATH`; empty for the root. */
  readonly walletBasePath?: string;
  /** The day (`YYYY-MM-DD`, UTC) the examples' dates are relative to; today when absent. */
  readonly asOf?: string;
}

const METHOD_ORDER = ['get', 'post', 'put', 'patch', 'delete'];

/** Sorted by path, then method, so the files do not depend on the order of the operation list. */
const sorted = (ops: readonly OperationSpec[]): OperationSpec[] =>
  [...ops].sort((a, b) => (a.path === b.path ? METHOD_ORDER.indexOf(a.method) - METHOD_ORDER.indexOf(b.method) : a.path < b.path ? -1 : 1));

/** Path parameters named in the template but missing from the operation's params schema, as strings. */
function paramsOf(op: OperationSpec): z.ZodObject | undefined {
  const named = [...op.path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1] as string);
  const given = op.request?.params;
  const missing = named.filter((n) => given?.shape[n] === undefined);
  if (missing.length === 0) return given;
  const extra = Object.fromEntries(missing.map((n) => [n, z.string()]));
  return given ? given.extend(extra) : z.object(extra);
}

function responseOf(status: number, spec: ResponseSpec): Record<string, unknown> {
  const headers: Record<string, unknown> = { 'X-Request-Id': { $ref: '#/components/headers/X-Request-Id' } };
  for (const [name, description] of Object.entries(spec.headers ?? {})) headers[name] = { description, schema: { type: 'string' } };
  const out: Record<string, unknown> = { description: spec.description, headers };
  const content: Record<string, unknown> = {};
  if (spec.document !== undefined) {
    content[spec.document.contentType] = { schema: { type: 'string', format: 'binary', description: spec.document.description } };
  }
  // A body schema and problem reasons together: an OAuth error body, or a platform problem+json.
  if (spec.schema !== undefined) content[spec.contentType ?? 'application/json'] = { schema: spec.schema };
  else if (spec.contentType !== undefined && spec.reasons === undefined) content[spec.contentType] = { schema: { type: 'string' } };
  if (spec.reasons !== undefined) {
    content['application/problem+json'] = { schema: problemJsonSchemaFor(status, spec.reasons), example: problemExampleFor(status, spec.reasons) };
  }
  if (Object.keys(content).length > 0) out.content = content;
  return out;
}

function routeOf(op: OperationSpec, schemes: readonly Scheme[], walletBasePath: string, examples: OperationExamples): RouteConfig {
  const request: NonNullable<RouteConfig['request']> = {};
  const params = paramsOf(op);
  if (params) request.params = params;
  if (op.request?.query) request.query = op.request.query;
  if (op.request?.headers) request.headers = op.request.headers;
  if (op.request?.body) {
    const media = { schema: op.request.body, ...(examples.body === undefined ? {} : { example: examples.body }) };
    request.body = { required: true, content: { [op.request.bodyContentType ?? 'application/json']: media } };
  }
  const responses = Object.fromEntries(Object.entries(effectiveResponses(op)).map(([s, spec]) => [s, responseOf(Number(s), spec)]));
  // The success answer's example, on the first 2xx with a JSON body.
  const success = Object.keys(responses).find((s) => Number(s) >= 200 && Number(s) < 300);
  const content = success === undefined ? undefined : (responses[success]!.content as Record<string, Record<string, unknown>> | undefined);
  if (examples.response !== undefined && content?.['application/json'] !== undefined) content['application/json'].example = examples.response;
  return {
    method: op.method,
    path: publishedPath(op, walletBasePath),
    operationId: op.operationId,
    summary: op.summary,
    ...(op.description === undefined ? {} : { description: op.description }),
    ...(op.tags === undefined ? {} : { tags: [...op.tags] }),
    security: securityOf(op.token, schemes),
    'x-token': op.token,
    ...(op.token === 'api-key' ? { 'x-required-scope': op.scope ?? null } : {}),
    ...(Object.keys(request).length > 0 ? { request } : {}),
    responses,
  } as RouteConfig;
}

/**
 * The one server of every file is the service's root, as a relative URL: a reader resolves it
 * against where the file came from, so the reference page works from whatever host, port and
 * scheme it was opened at (an absolute `http://localhost:3000` fails from any other, with a
 * misleading CORS error). Paths are written as mounted, with `WALLET_BASE_PATH` already in the
 * wallet paths (the JWKS stays at the root), so a client joins server and path without naming
 * the prefix twice.
 */
function serversOf(): Array<{ url: string; description: string }> {
  return [{ url: '/', description: 'The server that serves this file (the reference page sends “Try it out” here)' }];
}

/**
 * Puts each parameter's example on it (`example`, which the reference page fills in): the
 * generator builds parameters from the zod objects, which hold no per-day examples.
 */
function addParameterExamples(doc: Record<string, unknown>, examplesOf: ReadonlyMap<string, OperationExamples>): void {
  const paths = (doc.paths ?? {}) as Record<string, Record<string, { operationId?: string; parameters?: Array<Record<string, unknown>> }>>;
  for (const item of Object.values(paths)) {
    for (const operation of Object.values(item)) {
      const examples = examplesOf.get(operation.operationId ?? '');
      if (examples === undefined) continue;
      for (const parameter of operation.parameters ?? []) {
        const from = parameter.in === 'path' ? examples.params : parameter.in === 'query' ? examples.query : parameter.in === 'header' ? examples.headers : undefined;
        const value = from?.[parameter.name as string];
        if (value !== undefined) parameter.example = value;
      }
    }
  }
}

/** Which surfaces' events each file publishes as `webhooks` (the file of whoever registers the endpoint). */
const WEBHOOK_FILES: Readonly<Record<OpenApiFile, ReadonlyArray<WebhookEventSpec['surface']>>> = {
  'booking-api.yaml': ['booking'],
  'operator-api.yaml': [],
  'wallet-api.yaml': ['wallet'],
  'wallet-backend-api.yaml': ['wallet'],
  'wallet-app-api.yaml': [],
};

/** One event as an OpenAPI 3.1 webhook: the request the service sends to a registered endpoint. */
function webhookOf(event: WebhookEventSpec): RouteConfig {
  return {
    method: 'post',
    path: event.type,
    operationId: `${event.type.replace(/[._]([a-z])/g, (_, c: string) => c.toUpperCase())}Webhook`,
    summary: event.summary,
    description: WEBHOOK_SIGNING_TEXT,
    tags: ['webhooks'],
    // The service sends no credential: the receiver checks the signature headers instead.
    security: [],
    request: {
      headers: z.object({
        'webhook-id': z.string().describe('The event id (`evt_…`): the same on every attempt; de-duplicate on it'),
        'webhook-timestamp': z.string().describe('Unix seconds of this attempt'),
        'webhook-signature': z.string().describe('`v1,<base64 HMAC-SHA256>` (Standard Webhooks 1.0)'),
      }),
      body: { required: true, content: { 'application/json': { schema: eventBodySchema(event) } } },
    },
    responses: {
      200: { description: 'Any 2xx within 10 s acknowledges the event; anything else is retried' },
    },
  } as RouteConfig;
}

/** Drops empty maps the generator leaves (`parameters: {}`, `webhooks: {}`). */
function prune(doc: Record<string, unknown>): Record<string, unknown> {
  const components = doc.components as Record<string, Record<string, unknown>> | undefined;
  if (components) for (const [k, v] of Object.entries(components)) if (Object.keys(v).length === 0) delete components[k];
  if (doc.webhooks && Object.keys(doc.webhooks as object).length === 0) delete doc.webhooks;
  return doc;
}

/** One OpenAPI 3.1 document: the operations the file holds, with their security, `x-token` and every error. */
export function buildOpenApiDocument(file: OpenApiFile, operations: readonly OperationSpec[], options: OpenApiOptions = {}): Record<string, unknown> {
  const walletBasePath = options.walletBasePath ?? '';
  const asOf = options.asOf ?? exampleDayOf(new Date());
  const demo = demoExamples(asOf);
  const info = FILE_INFO[file];
  const ops = sorted(operations.filter(FILE_MEMBERSHIP[file]));
  const examplesOf = new Map(ops.map((op) => [op.operationId, op.examples?.(demo) ?? {}]));
  const registry = new OpenAPIRegistry();
  for (const [name, header] of Object.entries(COMMON_HEADERS)) registry.registerComponent('headers', name, header);
  for (const scheme of info.schemes) registry.registerComponent('securitySchemes', scheme, SECURITY_SCHEMES[scheme]);
  for (const op of ops) registry.registerPath(routeOf(op, info.schemes, walletBasePath, examplesOf.get(op.operationId)!));
  for (const event of WEBHOOK_EVENTS.filter((e) => WEBHOOK_FILES[file].includes(e.surface))) registry.registerWebhook(webhookOf(event));
  const tags = [...new Set(ops.flatMap((op) => op.tags ?? []))].sort().map((name) => ({
    name,
    ...(TAG_DESCRIPTIONS[name] === undefined ? {} : { description: TAG_DESCRIPTIONS[name] }),
  }));
  const doc = new OpenApiGeneratorV31([{ type: 'schema', schema: problemSchema }, ...registry.definitions], { sortComponents: 'alphabetically' }).generateDocument({
    openapi: '3.1.0',
    info: { title: info.title, version: API_VERSION, description: `${info.description}\n\n${examplesText(asOf)}`, 'x-examples-as-of': asOf },
    servers: serversOf(),
    tags,
  });
  addParameterExamples(doc as unknown as Record<string, unknown>, examplesOf);
  return prune(doc as unknown as Record<string, unknown>);
}

/**
 * The day a committed file's examples are relative to (its `info.x-examples-as-of`), so that the
 * check that it is up to date regenerates it for that day; null when it records none.
 */
export function committedExamplesDay(text: string): string | null {
  const m = /^ {2}x-examples-as-of: "?(\d{4}-\d{2}-\d{2})"?$/m.exec(text);
  return m === null ? null : (m[1] as string);
}

/**
 * YAML 1.1 quoting: a string a YAML 1.1 reader would take for something else (a date such as an
 * example's `2026-12-26`, `yes`, `on`) is quoted. The reference page reads the files with js-yaml,
 * which turns an unquoted date into a Date and fills "Try it out" with its `toString()`.
 */
const YAML_OPTIONS = { lineWidth: 0, version: '1.1' } as const;

/** One published file as YAML text. */
export function renderOpenApiFile(file: OpenApiFile, operations: readonly OperationSpec[], options: OpenApiOptions = {}): string {
  return `# Generated by \`npm run openapi\` from the OperationSpecs beside the routes. Do not edit.\n${stringify(buildOpenApiDocument(file, operations, options), YAML_OPTIONS)}`;
}

/** Every published file as YAML text, keyed by file name. */
export function renderOpenApiFiles(operations: readonly OperationSpec[], options: OpenApiOptions = {}): Record<OpenApiFile, string> {
  const out = {} as Record<OpenApiFile, string>;
  for (const file of OPENAPI_FILES) out[file] = renderOpenApiFile(file, operations, options);
  return out;
}
