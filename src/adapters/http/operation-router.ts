import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { Router, type Request, type RequestHandler, type Response } from 'express';
import { BOOKING_BASE_PATH, OPERATOR_BASE_PATH } from './app.js';
import type { IdempotentWrites } from '../../application/idempotent-writes.js';
import { livemodeOf, machineOf, tokenOf, userOf } from './bearer.middleware.js';
import { formBody, jsonBody } from './request-guards.js';
import { HttpProblem } from './problem.js';
import { idempotencyKeyOf, runIdempotent, send, type SerialisedAnswer } from './idempotent-route.js';
import {
  DocumentBody,
  JsonText,
  StreamedBody,
  type Answer,
  type Caller,
  type Operation,
  type OperationContext,
  type RequestSchemas,
  type ServerIdentity,
  type TokenRule,
} from './operation.js';
import { dpopRequestOf, oauthAnswers, oauthErrors } from './wallet/oauth.js';
import type { AuthFailureLimit, RateLimits } from './rate-limits.js';
import { agentOf, operatorOf } from './request-context.js';
import type { Operator } from '../../domain/catalogue/operator.js';
import type { HttpUseCases } from './use-cases.js';
import type { AgentPrincipal, MachinePrincipal, WalletPrincipal, WalletUserPrincipal } from '../../domain/identity/principal.js';
import type { VerifiedToken } from '../../domain/identity/token-verifier.port.js';
import type { DpopRequestContext } from '../../application/wallet/check-dpop-proof.js';
import { decideKeyPolicy, keyPolicyError, type Scope } from '../../domain/identity/key-policy.js';
import { allowlistRanges, ipaddrRanges } from '../ip/ip-ranges.ipaddr.js';
import { clientIp, requestOrigin } from './client-address.js';

/** The bearer-token check of a wallet operation, for the token kinds it takes. */
export type WalletAuth = (rule: 'machine' | 'user' | 'either') => RequestHandler;

/** What the routes of a surface are built on. */
export interface OperationDeps {
  readonly core: HttpUseCases;
  /** The bearer-token check (wallet operations). */
  readonly auth: WalletAuth;
  readonly limits: RateLimits;
  /** The core's one idempotency mechanism, for operations that take an `Idempotency-Key`. */
  readonly idempotentWrites: IdempotentWrites;
  /** The issuer's origin (`TOKEN_ISSUER`): where the service is reached, for a DPoP proof's `htu`. */
  readonly publicOrigin?: string;
  /** What the service publishes about itself, for the well-known operations mounted at the root. */
  readonly server?: ServerIdentity;
}

/**
 * The Express path of an operation, within its surface's router: the published template with
 * `:name` parameters, booking paths relative to `BOOKING_BASE_PATH` (where the booking router is
 * mounted), wallet paths as written (relative to `WALLET_BASE_PATH` already).
 */
export function routePath(op: Operation): string {
  let path = op.path;
  if (op.surface === 'booking' || op.surface === 'operator') {
    const base = op.surface === 'booking' ? BOOKING_BASE_PATH : OPERATOR_BASE_PATH;
    if (!path.startsWith(`${base}/`)) throw new Error(`${op.surface} operation outside ${base}: ${op.operationId}`);
    path = path.slice(base.length);
  }
  return path.replace(/\{([^}]+)\}/g, ':$1');
}

/**
 * The credential check a route takes, as its declaration states it: bearer tokens of the kinds
 * `machine`, `user` or `either`, checked on the route; none for `none`. `api-key` operations are
 * mounted behind the booking surface's key check, which runs before routing (so an unknown path
 * without a key is 401, not 404); `mountBehindKey` says whether this router is.
 */
function credentialOf(token: TokenRule, auth: WalletAuth, operationId: string, behindKey: boolean): RequestHandler[] {
  switch (token) {
    case 'machine':
    case 'user':
    case 'either':
      return [auth(token)];
    case 'api-key':
    case 'operator-key':
      if (!behindKey) throw new Error(`${operationId} takes an API key but its router is not behind the key check`);
      return [];
    case 'none':
      if (behindKey) throw new Error(`${operationId} takes no credential but its router is behind the key check`);
      return [];
  }
}

/** A live caller of a test helper: 404 `not-found`, as for a path that does not exist. */
const sandboxGate =
  (token: TokenRule): RequestHandler =>
  (_req, res, next) => {
    const livemode = token === 'api-key' ? agentOf(res.locals).livemode : livemodeOf(res.locals);
    if (livemode) next(new HttpProblem(404, 'not-found', 'No such resource.'));
    else next();
  };

/**
 * The calling key's policy for an `api-key` operation: its allowlist, then the scope the
 * declaration states (null: any key may call it). A refusal is recorded (`api_key.refused`, at
 * most once per key, reason and minute; a failure to record never changes the answer) and
 * answered 403 `ip-not-allowed` or `insufficient-scope` with `requiredScope`. An allowed request
 * passes on at once, without a promise: this runs on every booking request.
 */
const keyPolicyOf =
  (scope: Scope | null, core: HttpUseCases): RequestHandler =>
  (req, res, next) => {
    const principal = agentOf(res.locals);
    const allowedIps = principal.key.allowedIps;
    // The client's address is read only for a key that is pinned to some.
    const address = allowedIps.length === 0 ? null : ipaddrRanges.parseAddress(clientIp(req));
    const decision = decideKeyPolicy({ scopes: principal.key.scopes, allowedIps: allowlistRanges(allowedIps) }, scope, address);
    if (decision.allowed) {
      next();
      return;
    }
    return core.identity.recordKeyRefusal
      .execute(principal, decision, requestOrigin(req))
      .catch(() => false)
      .then(() => next(keyPolicyError(decision)));
  };

/** The answer as it leaves: headers set on `res`, the body serialised as JSON (a document as it is). */
function serialise(res: Response, answer: Answer): SerialisedAnswer {
  const headers = answer.headers;
  if (headers !== undefined) for (const name in headers) res.setHeader(name, headers[name]!);
  if (answer.body instanceof DocumentBody) {
    const { bytes } = answer.body;
    return {
      status: answer.status,
      body: Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength),
      contentType: answer.body.contentType,
    };
  }
  const body =
    answer.body === undefined || answer.status === 204
      ? null
      : answer.body instanceof JsonText
        ? answer.body.text
        : JSON.stringify(answer.body);
  return { status: answer.status, body, contentType: 'application/json' };
}

/** Sends an answer: a streamed body chunk by chunk, anything else serialised. */
function sendAnswer(res: Response, answer: Answer): Promise<void> | void {
  if (!(answer.body instanceof StreamedBody)) return send(res, serialise(res, answer));
  return stream(res, answer, answer.body);
}

/**
 * Writes a streamed answer as its chunks come, at the pace the connection drains. A failure
 * before the first chunk is an ordinary error answer; after it, the status is sent and the
 * connection is cut, so a client never takes a truncated body for a whole one.
 */
async function stream(res: Response, answer: Answer, body: StreamedBody): Promise<void> {
  const chunks = body.chunks[Symbol.asyncIterator]();
  // The first chunk is read before anything is sent: a refusal until then is an error answer.
  const first = await chunks.next();
  const headers = answer.headers;
  if (headers !== undefined) for (const name in headers) res.setHeader(name, headers[name]!);
  res.status(answer.status).type(body.contentType);
  async function* all(): AsyncIterable<string | Buffer> {
    if (first.done === true) return;
    yield first.value;
    for (let next = await chunks.next(); next.done !== true; next = await chunks.next()) yield next.value;
  }
  try {
    await pipeline(Readable.from(all()), res);
  } catch (err) {
    res.destroy(err instanceof Error ? err : new Error(String(err)));
  }
}

/**
 * The caller of one request, read from what the credential check left on `res.locals` when a
 * handler asks: one small object, made only for the handlers that read it.
 */
class LocalsCaller implements Caller {
  constructor(private readonly locals: Response['locals']) {}

  agent(): AgentPrincipal {
    return agentOf(this.locals);
  }

  operator(): Operator {
    return operatorOf(this.locals);
  }

  machine(): MachinePrincipal {
    return machineOf(this.locals);
  }

  user(): WalletUserPrincipal {
    return userOf(this.locals);
  }

  wallet(): WalletPrincipal {
    const principal = this.locals.wallet;
    if (principal === undefined) throw new Error('wallet route reached without bearer authentication');
    return principal;
  }

  token(): VerifiedToken {
    return tokenOf(this.locals);
  }

  livemode(): boolean {
    return livemodeOf(this.locals);
  }

  get walletUser(): unknown {
    return this.locals.walletUser;
  }
}

/** What the context of every request of one operation shares, fixed when its route is built. */
interface OperationRoute {
  readonly schemas: RequestSchemas;
  readonly deps: OperationDeps;
  readonly takesKey: boolean;
  /** The JSON body was checked against its schema before the handler (`checkedJsonBody`): `req.body` is the parsed one. */
  readonly bodyChecked: boolean;
}

/**
 * Checks a JSON body against the operation's schema before its handler runs, whether or not the
 * handler reads it: what the declaration publishes is what the route refuses (400
 * `invalid-request`), and the handler gets the parsed body (unknown fields dropped).
 */
const checkedJsonBody =
  (schema: NonNullable<RequestSchemas['body']>): RequestHandler =>
  (req, _res, next) => {
    try {
      req.body = schema.parse(req.body);
    } catch (err) {
      next(err);
      return;
    }
    next();
  };

/**
 * What a handler is given for one request. Its fixed parts come from the operation's route; the
 * parsed parameters, query, body, the caller and the DPoP context are made when first read.
 */
class RequestOperationContext implements OperationContext {
  private parsedParams: unknown;
  private parsedQuery: unknown;
  private parsedBody: unknown;
  private madeCaller: Caller | undefined;
  readonly idempotencyKey: string | null;

  constructor(
    readonly req: Request,
    private readonly res: Response,
    private readonly route: OperationRoute,
  ) {
    this.idempotencyKey = route.takesKey ? idempotencyKeyOf(req) : null;
  }

  get params(): OperationContext['params'] {
    const schema = this.route.schemas.params;
    return (this.parsedParams ??= schema === undefined ? {} : schema.parse(this.req.params)) as OperationContext['params'];
  }

  get query(): OperationContext['query'] {
    const schema = this.route.schemas.query;
    return (this.parsedQuery ??= schema === undefined ? {} : schema.parse(this.req.query)) as OperationContext['query'];
  }

  get body(): OperationContext['body'] {
    const schema = this.route.schemas.body;
    return (this.parsedBody ??=
      schema === undefined ? {} : this.route.bodyChecked ? this.req.body : schema.parse(this.req.body)) as OperationContext['body'];
  }

  get caller(): Caller {
    return (this.madeCaller ??= new LocalsCaller(this.res.locals));
  }

  get core(): HttpUseCases {
    return this.route.deps.core;
  }

  get authFailures(): AuthFailureLimit {
    return this.route.deps.limits.authFailures;
  }

  get dpop(): DpopRequestContext {
    return dpopRequestOf(this.req, this.route.deps.publicOrigin ?? '');
  }

  get server(): ServerIdentity {
    const server = this.route.deps.server;
    if (server === undefined) throw new Error('a well-known operation reached on a router built without the server identity');
    return server;
  }
}

/** Sets the headers of `pairs` (built once per operation) on a response. */
const setHeaders = (res: Response, pairs: ReadonlyArray<readonly [string, string]>): void => {
  for (const [name, value] of pairs) res.setHeader(name, value);
};

/**
 * The Express router of a list of operation declarations, in their order: for each, the route
 * at its path with, in turn, the OAuth error answers (`oauthErrors`), the credential check its
 * `token` names, its limiter (`rateLimit`; after the form of a form-encoded operation, which
 * the limiter may key on), its body parser, then its handler, under its `Idempotency-Key` when
 * it takes one. The handler's answer is sent as JSON.
 */
export function operationRouter(
  operations: readonly Operation[],
  deps: OperationDeps,
  options: {
    readonly behindKey?: boolean;
    /**
     * A limiter every route of this router takes ahead of its own (the booking surface's per-IP
     * limiter on its public routes), in the route's own chain: a request for another route does
     * not pass it on its way.
     */
    readonly limiter?: RequestHandler;
  } = {},
): Router {
  const router = Router();
  const behindKey = options.behindKey ?? false;
  const surfaceLimiter: RequestHandler[] = options.limiter === undefined ? [] : [options.limiter];
  for (const op of operations) {
    // The published `Idempotency-Key` header and the behaviour behind it go together.
    const takesKey = Object.keys(op.request?.headers?.shape ?? {}).some((name) => name.toLowerCase() === 'idempotency-key');
    if (takesKey !== (op.idempotency !== undefined)) {
      throw new Error(`${op.operationId}: an Idempotency-Key header is published exactly when the operation declares idempotency`);
    }
    if (op.token === 'api-key' && op.scope === undefined) {
      throw new Error(`${op.operationId}: an api-key operation states the scope it needs (null when any key may call it)`);
    }
    if (op.token !== 'api-key' && op.scope !== undefined) throw new Error(`${op.operationId}: only an api-key operation needs a key scope`);
    const path = routePath(op);
    const form = op.request?.bodyContentType === 'application/x-www-form-urlencoded';
    const bodySchema = op.request?.body;
    const bodyChecked = !form && bodySchema !== undefined;
    const body: RequestHandler[] = form
      ? [formBody]
      : bodySchema !== undefined
        ? [jsonBody, checkedJsonBody(bodySchema)]
        : op.jsonBody === true
          ? [jsonBody]
          : [];
    const limiter: RequestHandler[] = op.rateLimit === undefined ? surfaceLimiter : [...surfaceLimiter, deps.limits[op.rateLimit]];
    if (op.sandboxOnly === true && !((op.token === 'api-key' && op.scope === null) || op.token === 'machine')) {
      throw new Error(`${op.operationId}: a test helper takes any key of a sandbox agent (scope null) or a machine token`);
    }
    const chain: RequestHandler[] = [
      ...(op.oauthErrors === true ? [oauthAnswers] : []),
      // A test helper learns only who calls (any wallet token; the handler asks for a machine one) before it answers a live caller.
      ...(op.sandboxOnly === true
        ? [...credentialOf(op.token === 'machine' ? 'either' : op.token, deps.auth, op.operationId, behindKey), sandboxGate(op.token)]
        : credentialOf(op.token, deps.auth, op.operationId, behindKey)),
      ...(op.token === 'api-key' ? [keyPolicyOf(op.scope ?? null, deps.core)] : []),
      ...(form ? [...body, ...limiter] : [...limiter, ...body]),
    ];
    const route: OperationRoute = { schemas: op.request ?? {}, deps, takesKey: op.idempotency !== undefined, bodyChecked };
    const preset = op.presetHeaders === undefined ? null : Object.entries(op.presetHeaders);
    const idempotency = op.idempotency;
    const handle: RequestHandler =
      idempotency === undefined
        ? // No promise of its own: a handler's answer is sent as soon as it has one.
          (req, res) => {
            if (preset !== null) setHeaders(res, preset);
            const answer = op.handler(new RequestOperationContext(req, res, route));
            if (answer instanceof Promise) return answer.then((settled) => sendAnswer(res, settled));
            return sendAnswer(res, answer);
          }
        : async (req, res) => {
            if (preset !== null) setHeaders(res, preset);
            const produce = async (): Promise<SerialisedAnswer> =>
              serialise(res, await op.handler(new RequestOperationContext(req, res, route)));
            await runIdempotent(deps.idempotentWrites, idempotency, req, res, produce);
          };
    router[op.method](path, ...chain, handle);
    if (op.alsoAt !== undefined) {
      if (deps.server === undefined) throw new Error(`${op.operationId}: its further paths need the server identity`);
      for (const also of op.alsoAt(deps.server)) router[op.method](also, ...chain, handle);
    }
  }
  // Every error of an OAuth operation, answered the RFC 6749 way.
  for (const op of operations) if (op.oauthErrors === true) router.use(routePath(op), oauthErrors);
  return router;
}
