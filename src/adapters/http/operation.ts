import type { DpopRequestContext } from '../../application/wallet/check-dpop-proof.js';
import type { Request } from 'express';
import type { z } from 'zod';
import type { Scope } from '../../domain/identity/key-policy.js';
import type { ProblemReason } from '../../domain/shared/errors.js';
import type { AgentPrincipal, MachinePrincipal, WalletPrincipal, WalletUserPrincipal } from '../../domain/identity/principal.js';
import type { VerifiedToken } from '../../domain/identity/token-verifier.port.js';
import type { Operator } from '../../domain/catalogue/operator.js';
import type { DemoExamples, OperationExamples } from './openapi/examples.js';
import type { AuthFailureLimit, LimiterName } from './rate-limits.js';
import type { HttpUseCases } from './use-cases.js';

/**
 * Which credential an operation takes. Booking: `api-key` or `none`; operators: `operator-key`;
 * wallet: the token kinds.
 * Published as `security` and `x-token`; the errors the credential can give (401/403 with their
 * reasons) are added to the responses by the generator, so specs need not repeat them.
 */
export type TokenRule = 'api-key' | 'operator-key' | 'none' | 'machine' | 'user' | 'either';

/** One documented response of an operation. */
export interface ResponseSpec {
  readonly description: string;
  /** The JSON body schema; omitted for problem+json errors (documented by `reasons`). */
  readonly schema?: z.ZodType;
  /** The `reason` values a problem+json response with this status can carry. */
  readonly reasons?: readonly ProblemReason[];
  /** Non-JSON content type, when the body is not `application/json`. */
  readonly contentType?: string;
  /**
   * A document the operation answers with instead of the JSON body, by content negotiation
   * (`Accept`): published first, as binary, with what it is.
   */
  readonly document?: { readonly contentType: string; readonly description: string };
  readonly headers?: Readonly<Record<string, string>>;
}

/**
 * The published description of one operation, built from the same zod schemas that validate its
 * requests. The OpenAPI files are generated from these and nothing else.
 */
export interface OperationSpec {
  readonly surface: 'booking' | 'operator' | 'wallet' | 'platform';
  readonly method: 'get' | 'post' | 'put' | 'patch' | 'delete';
  /**
   * OpenAPI path template as mounted, e.g. `/api/v1/orders/{orderId}` or `/me/balance`. Wallet
   * paths are relative to `WALLET_BASE_PATH` (the generator prefixes it); routes mounted at the
   * root whatever that prefix (health, docs) are `platform`, which no published file holds.
   */
  readonly path: string;
  /**
   * A wallet operation mounted at the root whatever `WALLET_BASE_PATH` says (the JWKS): its path
   * is published as written.
   */
  readonly atRoot?: true;
  /**
   * For a token-less wallet operation: which scoped file holds it. `app` (the password login) is
   * in the wallet-app file only; anything else token-less (the token endpoint, the JWKS: a
   * backend's business, and what takes a client secret) is in the wallet-backend file only.
   */
  readonly audience?: 'backend' | 'app';
  /**
   * The operation answers every error as RFC 6749 §5.2 JSON: its request errors, documented by
   * its author (the generator adds no problem+json answers for the body framing: 400, 413, 415),
   * and the platform's limits and faults (429, 500, 503), which the generator adds as
   * `temporarily_unavailable` and `server_error`. Only the header check before routing stays
   * problem+json.
   */
  readonly oauthErrors?: true;
  /**
   * The request-rate limiter of `RateLimits` that guards this wallet operation, mounted on its
   * route and published as its `RateLimit-*` headers and 429 (every booking operation has one:
   * the per-IP limiter on the public ones, the per-key limiter on the rest, mounted per surface).
   */
  readonly rateLimit?: WalletLimiter;
  readonly operationId: string;
  readonly summary: string;
  readonly description?: string;
  readonly tags?: readonly string[];
  readonly token: TokenRule;
  /**
   * The key scope an `api-key` operation needs (CONTRACT §5.1), or null for one any key may call
   * (roll, leak report). Every `api-key` operation states it, and this is the only place that
   * says which scope an operation needs (the domain knows the scope names and the rule, never a
   * path). Checked with the key's allowlist before the handler, and published as `x-required-scope`.
   */
  readonly scope?: Scope | null;
  readonly request?: {
    readonly params?: z.ZodObject;
    readonly query?: z.ZodObject;
    /** JSON body (or form body when `bodyContentType` says so). */
    readonly body?: z.ZodType;
    readonly bodyContentType?: 'application/json' | 'application/x-www-form-urlencoded';
    /** Extra request headers, e.g. `Idempotency-Key`. */
    readonly headers?: z.ZodObject;
  };
  /**
   * The statuses this operation gives of its own accord. The generator adds those implied by
   * `token`, by `request` (400 invalid-request/malformed-json, 413, 415, and 409/422 when the
   * headers take an `Idempotency-Key`) and by the platform (429, 500, 503), merging reasons into
   * a status written here. Name shared schemas with zod's `.meta({ id: 'Order' })` (not
   * `.openapi()`, which needs a global zod extension this project does not install).
   */
  readonly responses: Readonly<Record<number, ResponseSpec>>;
  /**
   * Examples of every parameter, header and body the operation takes (and of its success answer),
   * drawn from the demo data, for the day the file is generated: the reference page's "Try it
   * out" sends them as they are.
   */
  readonly examples?: (demo: DemoExamples) => OperationExamples;
}

/** The limiters a wallet operation names; the booking ones are mounted per surface. */
export type WalletLimiter = Exclude<LimiterName, 'public' | 'booking'>;

/** What a handler answers: sent as JSON (`204`, or no `body`, sends none). */
export interface Answer {
  readonly status: number;
  readonly body?: unknown;
  readonly headers?: Readonly<Record<string, string>>;
}

/** A document (a PDF…) to send as it is, with its content type, instead of JSON. */
export class DocumentBody {
  constructor(
    readonly contentType: string,
    readonly bytes: Uint8Array,
  ) {}
}

/**
 * A body written as it is produced, so that a long one (a year's statement) never sits in
 * memory whole: its content type and its chunks, pulled as the connection drains. Only for
 * reads (an operation with an `Idempotency-Key` keeps its answer whole).
 */
export class StreamedBody {
  constructor(
    readonly contentType: string,
    readonly chunks: AsyncIterable<string | Buffer>,
  ) {}
}

/** JSON already serialised (an answer kept from an earlier request): sent as it is. */
export class JsonText {
  constructor(readonly text: string) {}
}

/** The authenticated caller, as the operation's credential established it. */
export interface Caller {
  /** The agent of the API key (`api-key` operations). */
  agent(): AgentPrincipal;
  /** The operator of the operator key (`operator-key` operations). */
  operator(): Operator;
  /** The tenant backend of a machine token. */
  machine(): MachinePrincipal;
  /** The wallet holder of a user token. */
  user(): WalletUserPrincipal;
  /** Whichever wallet principal the token gave (`either` operations). */
  wallet(): WalletPrincipal;
  /** The verified bearer token itself (jti, iat, exp). */
  token(): VerifiedToken;
  /** Whether the wallet caller's tenant is live: false for a sandbox tenant (`livemode` of what it is answered). */
  livemode(): boolean;
  /** The person as read by the token check (null for a machine token). */
  readonly walletUser: unknown;
}

type Parsed<S> = S extends z.ZodType ? z.infer<S> : Record<string, never>;

/** The request schemas an operation declares. */
export type RequestSchemas = NonNullable<OperationSpec['request']>;

/**
 * What a handler is given. `params`, `query` and `body` are parsed with the declared schemas
 * when first read (a mismatch is the usual 400 `invalid-request`), so a handler reads them in
 * the order it judges them.
 */
export interface OperationContext<R extends RequestSchemas = RequestSchemas> {
  readonly params: Parsed<R['params']>;
  readonly query: Parsed<R['query']>;
  readonly body: Parsed<R['body']>;
  readonly caller: Caller;
  /** The request: its `baseUrl`, client address, headers. */
  readonly req: Request;
  readonly core: HttpUseCases;
  /** Refuses an address that failed authentication too often (client credentials, sign-in). */
  readonly authFailures: AuthFailureLimit;
  /** The `Idempotency-Key` sent (validated), or null. */
  readonly idempotencyKey: string | null;
  /** The request's DPoP proof, method and public URL, for the token endpoints (RFC 9449). */
  readonly dpop: DpopRequestContext;
  /** What the service publishes about itself (the well-known operations). */
  readonly server: ServerIdentity;
}

/** What the service publishes about itself: its issuer, where the wallet is mounted, the keys that verify its tokens. */
export interface ServerIdentity {
  /** `TOKEN_ISSUER`: the `iss` of every wallet token. */
  readonly issuer: string;
  /** `WALLET_BASE_PATH`: where the wallet routes (token, revocation, introspection) are mounted. */
  readonly walletBasePath: string;
  /** The public keys that verify wallet tokens (current and recently retired), as a JWK Set. */
  jwks(): Promise<{ keys: readonly object[] }>;
}

/** How an operation takes an `Idempotency-Key`. */
export interface IdempotencyRule {
  /**
   * Whose keys they are: the agent's (whichever of its API keys sends them), the calling API
   * key's own, or the wallet caller's (the tenant's backend per client, or one wallet user).
   */
  readonly scope: 'agent' | 'calling-key' | 'operator' | 'wallet';
  /**
   * Top-level fields of the JSON answer that hold a secret shown once (a new API key): sent to
   * the caller, never stored, so a replay answers without them.
   */
  readonly secretFields?: readonly string[];
  /**
   * The handler's one write is a ledger top-up, payment or transfer, and nothing else: with a
   * key, it may go with the key's answer as one statement (`IdempotentWrites`).
   */
  readonly oneLedgerWrite?: true;
}

/**
 * One operation, declared once: its published description, and what serves it. The Express
 * route, its credential check, limiter, body parsing and `Idempotency-Key` handling are all
 * derived from this object (`operation-router.ts`), and the OpenAPI files from the same object.
 */
export interface Operation<R extends RequestSchemas = RequestSchemas> extends Omit<OperationSpec, 'request'> {
  readonly surface: 'booking' | 'operator' | 'wallet';
  readonly request?: R;
  /**
   * The JSON body framing is checked (415, 413, malformed JSON) though the operation declares no
   * body schema (a write that takes an empty body).
   */
  readonly jsonBody?: true;
  /**
   * Further paths the route is served at, unpublished, from what the service publishes about
   * itself (the OAuth metadata at the issuer's path as well, RFC 8414 §3.1).
   */
  readonly alsoAt?: (server: ServerIdentity) => readonly string[];
  /** Headers set as the handler starts, so that its error answers carry them too. */
  readonly presetHeaders?: Readonly<Record<string, string>>;
  /**
   * A test helper (CONTRACT §6.7): it exists for sandbox callers only. Every live caller gets 404
   * `not-found` as soon as its credential says who it is, before anything else of the request is
   * read (its key's scopes, the token's kind, the body); a sandbox caller's key needs no scope.
   */
  readonly sandboxOnly?: boolean;
  readonly idempotency?: IdempotencyRule;
  /** Answers the request: at once when it has nothing to wait for (sent in the same turn), else in a promise. */
  readonly handler: (ctx: OperationContext<R>) => Answer | Promise<Answer>;
}

/** Declares an operation, its handler typed by its request schemas. */
export const operation = <R extends RequestSchemas = Record<never, never>>(op: Operation<R>): Operation => op as unknown as Operation;

/** The header of an answer no cache may keep. */
export const NO_STORE: Readonly<Record<string, string>> = { 'Cache-Control': 'no-store' };
