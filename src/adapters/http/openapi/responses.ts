import type { OperationSpec, ResponseSpec } from '../operation.js';

/** One response the service adds to an operation on its own account (auth, framing, limits). */
interface Implied {
  readonly status: number;
  readonly description: string;
  readonly reasons: readonly string[];
  readonly headers?: Readonly<Record<string, string>>;
}

const RETRY_AFTER = { 'Retry-After': 'Seconds to wait before retrying' };
const WWW_AUTHENTICATE = { 'WWW-Authenticate': '`Bearer error="invalid_token"` when the token is missing or invalid' };

/** What the credential of an operation can give, from its `token` rule. */
function credentialErrors(op: OperationSpec): Implied[] {
  switch (op.token) {
    case 'api-key':
      return [
        { status: 401, description: 'No `X-API-KEY` header, or the key is unknown, revoked or expired', reasons: ['missing-api-key', 'invalid-api-key'] },
        { status: 403, description: 'The agent of the key is not active', reasons: ['agent-suspended'] },
      ];
    case 'machine':
      return [
        { status: 401, description: 'No bearer token, or it is malformed, invalid or expired', reasons: ['invalid-token'], headers: WWW_AUTHENTICATE },
        { status: 403, description: 'A user token was sent: this operation takes the tenant backend’s machine token', reasons: ['machine-token-required'] },
      ];
    case 'user':
      return [
        {
          status: 401,
          description: 'No bearer token, or it is malformed, invalid or expired (`invalid-token`); or a machine token was sent where a wallet user is needed (`not-a-wallet-user`)',
          reasons: ['invalid-token', 'not-a-wallet-user'],
          headers: WWW_AUTHENTICATE,
        },
      ];
    case 'either':
      return [{ status: 401, description: 'No bearer token, or it is malformed, invalid or expired', reasons: ['invalid-token'], headers: WWW_AUTHENTICATE }];
    case 'none':
      return [];
  }
}

const hasIdempotencyKey = (op: OperationSpec): boolean =>
  Object.keys(op.request?.headers?.shape ?? {}).some((name) => name.toLowerCase() === 'idempotency-key');

/** What the request framing of an operation can give: schema failures, body parsing, Idempotency-Key. */
function requestErrors(op: OperationSpec): Implied[] {
  const out: Implied[] = [];
  const request = op.request;
  if (request === undefined) return out;
  const form = request.bodyContentType === 'application/x-www-form-urlencoded';
  const json = request.body !== undefined && !form;
  if (json) out.push({ status: 400, description: 'The body is not valid JSON, or does not match the schema (see `errors`)', reasons: ['malformed-json', 'invalid-request'] });
  else if (request.query !== undefined || request.params !== undefined || request.body !== undefined || hasIdempotencyKey(op)) {
    out.push({ status: 400, description: 'The request does not match the schema (see `errors`)', reasons: ['invalid-request'] });
  }
  if (request.body !== undefined) {
    out.push({ status: 413, description: 'The body is over the size limit', reasons: ['payload-too-large'] });
    out.push({ status: 415, description: `The body is not ${form ? 'application/x-www-form-urlencoded' : 'application/json'}`, reasons: ['unsupported-media-type'] });
  }
  if (hasIdempotencyKey(op)) {
    out.push({ status: 409, description: 'A request with the same `Idempotency-Key` is still running', reasons: ['idempotency-key-in-use'] });
    out.push({ status: 422, description: 'The `Idempotency-Key` was already used with a different request', reasons: ['idempotency-key-reused'] });
  }
  return out;
}

/** What every booking and wallet operation can give: rate limits, an unreachable database, a fault. */
function platformErrors(op: OperationSpec): Implied[] {
  if (op.surface === 'platform') return [{ status: 500, description: 'An unexpected fault (no detail is given)', reasons: ['internal-error'] }];
  return [
    { status: 429, description: 'Too many requests: wait for `Retry-After`', reasons: ['rate-limited'], headers: RETRY_AFTER },
    { status: 500, description: 'An unexpected fault (no detail is given; quote `requestId`)', reasons: ['internal-error'] },
    { status: 503, description: 'The service cannot reach its database: retry after `Retry-After`', reasons: ['service-unavailable'], headers: RETRY_AFTER },
  ];
}

/**
 * Every response an operation can give: those its author wrote, plus those the service adds from
 * the operation's credential (`token`), its request framing and the platform (rate limits,
 * database). Reasons of one status are merged, the author's first. A status the author documents
 * with a non-problem body (e.g. OAuth's RFC 6749 errors) is left as written.
 */
export function effectiveResponses(op: OperationSpec): Readonly<Record<number, ResponseSpec>> {
  const merged = new Map<number, ResponseSpec>();
  for (const [status, spec] of Object.entries(op.responses)) merged.set(Number(status), spec);
  for (const implied of [...credentialErrors(op), ...requestErrors(op), ...platformErrors(op)]) {
    const own = merged.get(implied.status);
    if (own === undefined) {
      merged.set(implied.status, {
        description: implied.description,
        reasons: implied.reasons,
        ...(implied.headers ? { headers: implied.headers } : {}),
      });
      continue;
    }
    if (own.reasons === undefined) continue;
    const reasons = [...own.reasons, ...implied.reasons.filter((r) => !own.reasons?.includes(r))];
    const headers = { ...implied.headers, ...own.headers };
    merged.set(implied.status, { ...own, reasons, ...(Object.keys(headers).length > 0 ? { headers } : {}) });
  }
  return Object.fromEntries([...merged.entries()].sort(([a], [b]) => a - b));
}
