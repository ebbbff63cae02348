import type { z } from 'zod';
import type { DemoExamples, OperationExamples } from './openapi/examples.js';

/**
 * Which credential an operation takes. Booking: `api-key` or `none`; wallet: the token kinds.
 * Published as `security` and `x-token`; the errors the credential can give (401/403 with their
 * reasons) are added to the responses by the generator, so specs need not repeat them.
 */
export type TokenRule = 'api-key' | 'none' | 'machine' | 'user' | 'either';

/** One documented response of an operation. */
export interface ResponseSpec {
  readonly description: string;
  /** The JSON body schema; omitted for problem+json errors (documented by `reasons`). */
  readonly schema?: z.ZodType;
  /** The `reason` values a problem+json response with this status can carry. */
  readonly reasons?: readonly string[];
  /** Non-JSON content type, when the body is not `application/json`. */
  readonly contentType?: string;
  readonly headers?: Readonly<Record<string, string>>;
}

/**
 * The published description of one route, written beside the route and built from the same zod
 * schemas that validate it. The OpenAPI files are generated from these and nothing else.
 */
export interface OperationSpec {
  readonly surface: 'booking' | 'wallet' | 'platform';
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
  /** A request-rate limiter guards this wallet operation (every booking operation has one). */
  readonly rateLimited?: true;
  readonly operationId: string;
  readonly summary: string;
  readonly description?: string;
  readonly tags?: readonly string[];
  readonly token: TokenRule;
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
