import { Router, type RequestHandler, type Response } from 'express';
import { BOOKING_BASE_PATH } from './app.js';
import type { IdempotentWrites } from '../../application/idempotent-writes.js';
import { machineOf, tokenOf, userOf } from './bearer.middleware.js';
import { formBody, jsonBody } from './body.js';
import { idempotencyKeyOf, runIdempotent, send, type SerialisedAnswer } from './idempotent-route.js';
import { JsonText, type Answer, type Caller, type Operation, type OperationContext, type TokenRule } from './operation.js';
import { dpopRequestOf, oauthAnswers, oauthErrors } from './wallet/oauth.js';
import type { RateLimits } from './rate-limits.js';
import { agentOf } from './request-context.js';
import type { HttpUseCases } from './use-cases.js';
import type { WalletPrincipal } from '../../domain/identity/principal.js';
import { decideKeyPolicy, keyPolicyError, type Scope } from '../../domain/identity/key-policy.js';
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
}

/**
 * The Express path of an operation, within its surface's router: the published template with
 * `:name` parameters, booking paths relative to `BOOKING_BASE_PATH` (where the booking router is
 * mounted), wallet paths as written (relative to `WALLET_BASE_PATH` already).
 */
export function routePath(op: Operation): string {
  let path = op.path;
  if (op.surface === 'booking') {
    if (!path.startsWith(`${BOOKING_BASE_PATH}/`)) throw new Error(`booking operation outside ${BOOKING_BASE_PATH}: ${op.operationId}`);
    path = path.slice(BOOKING_BASE_PATH.length);
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
      if (!behindKey) throw new Error(`${operationId} takes an API key but its router is not behind the key check`);
      return [];
    case 'none':
      if (behindKey) throw new Error(`${operationId} takes no credential but its router is behind the key check`);
      return [];
  }
}

/**
 * The calling key's policy for an `api-key` operation: its allowlist, then the scope the
 * declaration states (null: any key may call it). A refusal is recorded (`api_key.refused`, at
 * most once per key, reason and minute; a failure to record never changes the answer) and
 * answered 403 `ip-not-allowed` or `insufficient-scope` with `requiredScope`.
 */
const keyPolicyOf =
  (scope: Scope | null, core: HttpUseCases): RequestHandler =>
  async (req, res, next) => {
    const principal = agentOf(res.locals);
    const decision = decideKeyPolicy(principal.key, scope, clientIp(req));
    if (decision.allowed) return next();
    await core.identity.recordKeyRefusal.execute(principal, decision, requestOrigin(req)).catch(() => false);
    next(keyPolicyError(decision));
  };

/** The answer as it leaves: headers set on `res`, the body serialised as JSON. */
function serialise(res: Response, answer: Answer): SerialisedAnswer {
  if (answer.headers !== undefined) for (const [name, value] of Object.entries(answer.headers)) res.setHeader(name, value);
  const body =
    answer.body === undefined || answer.status === 204
      ? null
      : answer.body instanceof JsonText
        ? answer.body.text
        : JSON.stringify(answer.body);
  return { status: answer.status, body, contentType: 'application/json' };
}

const callerOf = (res: Response): Caller => ({
  agent: () => agentOf(res.locals),
  machine: () => machineOf(res.locals),
  user: () => userOf(res.locals),
  wallet: () => {
    const principal = res.locals.wallet as WalletPrincipal | undefined;
    if (principal === undefined) throw new Error('wallet route reached without bearer authentication');
    return principal;
  },
  token: () => tokenOf(res.locals),
  get walletUser(): unknown {
    return res.locals.walletUser;
  },
});

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
  options: { readonly behindKey?: boolean } = {},
): Router {
  const router = Router();
  const behindKey = options.behindKey ?? false;
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
    const body: RequestHandler[] = form ? [formBody] : op.request?.body !== undefined || op.jsonBody === true ? [jsonBody] : [];
    const limiter: RequestHandler[] = op.rateLimit === undefined ? [] : [deps.limits[op.rateLimit]];
    const chain: RequestHandler[] = [
      ...(op.oauthErrors === true ? [oauthAnswers] : []),
      ...credentialOf(op.token, deps.auth, op.operationId, behindKey),
      ...(op.token === 'api-key' ? [keyPolicyOf(op.scope ?? null, deps.core)] : []),
      ...(form ? [...body, ...limiter] : [...limiter, ...body]),
    ];
    const context = (req: Parameters<RequestHandler>[0], res: Response): OperationContext => {
      const parsed: { params?: unknown; query?: unknown; body?: unknown } = {};
      const schemas = op.request ?? {};
      return {
        get params() {
          return (parsed.params ??= schemas.params === undefined ? {} : schemas.params.parse(req.params));
        },
        get query() {
          return (parsed.query ??= schemas.query === undefined ? {} : schemas.query.parse(req.query));
        },
        get body() {
          return (parsed.body ??= schemas.body === undefined ? {} : schemas.body.parse(req.body));
        },
        caller: callerOf(res),
        req,
        core: deps.core,
        authFailures: deps.limits.authFailures,
        idempotencyKey: op.idempotency === undefined ? null : idempotencyKeyOf(req),
        get dpop() {
          return dpopRequestOf(req, deps.publicOrigin ?? '');
        },
      } as OperationContext;
    };
    const handle: RequestHandler = async (req, res) => {
      if (op.presetHeaders !== undefined) for (const [name, value] of Object.entries(op.presetHeaders)) res.setHeader(name, value);
      const produce = async (): Promise<SerialisedAnswer> => serialise(res, await op.handler(context(req, res)));
      if (op.idempotency === undefined) send(res, await produce());
      else await runIdempotent(deps.idempotentWrites, op.idempotency, req, res, produce);
    };
    router[op.method](path, ...chain, handle);
  }
  // Every error of an OAuth operation, answered the RFC 6749 way.
  for (const op of operations) if (op.oauthErrors === true) router.use(routePath(op), oauthErrors);
  return router;
}
