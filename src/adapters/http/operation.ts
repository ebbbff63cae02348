import type { z } from 'zod';

/** Which credential an operation takes. Booking: `api-key` or `none`; wallet: the token kinds. */
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
  /** OpenAPI path template as mounted, e.g. `/api/v1/orders/{orderId}` or `/me/balance`. */
  readonly path: string;
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
  readonly responses: Readonly<Record<number, ResponseSpec>>;
}
