import type { z } from 'zod';

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
  readonly operationId: string;
  readonly summary: string;
  readonly description?: string;
  readonly tags?: readonly string[];
  readonly token: TokenRule;
  /**
   * For a token-less wallet operation, the one client that calls it: the tenant's `backend`
   * (it takes the client secret: never in the app file) or the wallet `app`. Unset: both.
   */
  readonly caller?: 'backend' | 'app';
  /** A wallet operation served at the root whatever `WALLET_BASE_PATH` is (well-known documents). */
  readonly atRoot?: boolean;
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
}
