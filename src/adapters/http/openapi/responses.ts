import { z } from 'zod';
import type { OperationSpec, ResponseSpec } from '../operation.js';
import type { ProblemReason } from '../../../domain/shared/errors.js';

/** One response the service adds to an operation on its own account (auth, framing, limits). */
interface Implied {
  readonly status: number;
  readonly description: string;
  readonly reasons: readonly ProblemReason[];
  readonly headers?: Readonly<Record<string, string>>;
  /** The key policy's refusals, added to the description of a 403 the author documents. */
  readonly policy?: string;
}

const RETRY_AFTER = { 'Retry-After': 'Seconds to wait before retrying' };
/** The headers of the request-rate limiters (IETF draft 6), on every answer of a limited operation. */
export const RATE_LIMIT_HEADERS = {
  'RateLimit-Limit': 'Requests allowed in the current window (present when request-rate limits are on)',
  'RateLimit-Remaining': 'Requests left in the current window (present when request-rate limits are on)',
  'RateLimit-Reset': 'Seconds until the window resets (present when request-rate limits are on)',
};
/** On a success of an operation that takes an `Idempotency-Key`. */
export const IDEMPOTENT_REPLAYED = {
  'Idempotent-Replayed': '`true` when this is the stored answer of an earlier request with the same `Idempotency-Key` (absent on the first answer)',
};
const WWW_AUTHENTICATE = {
  'WWW-Authenticate':
    '`Bearer error="invalid_token"` when the token is missing or invalid; `DPoP error="invalid_dpop_proof"` (or `invalid_token`) when a DPoP-bound token comes without a valid proof for this request, as Bearer, or an unbound one comes as DPoP',
};
/** A DPoP refusal on a request with a token (RFC 9449 §7). */
const DPOP_401 = '; or a DPoP-bound token without a valid `DPoP` proof for this request, or sent as Bearer (`invalid-dpop-proof`)';

/** The 403 of an `api-key` operation: the agent's state, then the calling key's policy. */
function keyPolicyError(scope: string | null): Implied {
  const policy =
    scope === null
      ? 'the key’s `allowedIps` do not hold the client’s address (`ip-not-allowed`)'
      : `the key’s \`allowedIps\` do not hold the client’s address (\`ip-not-allowed\`), or the key does not hold the scope \`${scope}\` (\`insufficient-scope\`, named in \`requiredScope\`)`;
  return {
    status: 403,
    description: `The agent of the key is not active; or ${policy}`,
    reasons: scope === null ? ['agent-suspended', 'ip-not-allowed'] : ['agent-suspended', 'ip-not-allowed', 'insufficient-scope'],
    policy,
  };
}

/** What the credential of an operation can give, from its `token` rule. */
function credentialErrors(op: OperationSpec): Implied[] {
  switch (op.token) {
    case 'api-key':
      return [
        { status: 401, description: 'No `X-API-KEY` header, or the key is unknown, revoked or expired', reasons: ['missing-api-key', 'invalid-api-key'] },
        keyPolicyError(op.scope ?? null),
      ];
    case 'operator-key':
      return [
        {
          status: 401,
          description: 'No `X-API-KEY` header, or it is not a known, unrevoked operator key (an agent’s key included)',
          reasons: ['missing-api-key', 'invalid-api-key'],
        },
      ];
    case 'machine':
      return [
        { status: 401, description: `No bearer token, or it is malformed, invalid or expired${DPOP_401}`, reasons: ['invalid-token', 'invalid-dpop-proof'], headers: WWW_AUTHENTICATE },
        { status: 403, description: 'A user token was sent: this operation takes the tenant backend’s machine token', reasons: ['machine-token-required'] },
      ];
    case 'user':
      return [
        {
          status: 401,
          description: `No bearer token, or it is malformed, invalid or expired (\`invalid-token\`); or a machine token was sent where a wallet user is needed (\`not-a-wallet-user\`)${DPOP_401}`,
          reasons: ['invalid-token', 'not-a-wallet-user', 'invalid-dpop-proof'],
          headers: WWW_AUTHENTICATE,
        },
      ];
    case 'either':
      return [{ status: 401, description: `No bearer token, or it is malformed, invalid or expired${DPOP_401}`, reasons: ['invalid-token', 'invalid-dpop-proof'], headers: WWW_AUTHENTICATE }];
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
  if (op.oauthErrors === true) {
    // The body's errors are the author's RFC 6749 answers; only the Idempotency-Key ones remain.
  } else if (json) out.push({ status: 400, description: 'The body is not valid JSON, or does not match the schema (see `errors`)', reasons: ['malformed-json', 'invalid-request'] });
  else if (request.query !== undefined || request.params !== undefined || request.body !== undefined || hasIdempotencyKey(op)) {
    out.push({ status: 400, description: 'The request does not match the schema (see `errors`)', reasons: ['invalid-request'] });
  }
  if (request.body !== undefined && op.oauthErrors !== true) {
    out.push({ status: 413, description: 'The body is over the size limit', reasons: ['payload-too-large'] });
    out.push({ status: 415, description: `The body is not ${form ? 'application/x-www-form-urlencoded' : 'application/json'}`, reasons: ['unsupported-media-type'] });
  }
  if (hasIdempotencyKey(op)) {
    out.push({ status: 409, description: 'A request with the same `Idempotency-Key` is still running after this one waited 5 s for it (a duplicate that arrives while the first runs waits for it and replays its answer)', reasons: ['idempotency-key-in-use'] });
    out.push({ status: 422, description: 'The `Idempotency-Key` was already used with a different request', reasons: ['idempotency-key-reused'] });
  }
  return out;
}

/** An RFC 6749 error body with one of the given codes. */
const oauthErrorBody = (...codes: [string, ...string[]]): z.ZodType =>
  z.object({ error: z.enum(codes), error_description: z.string() });

/**
 * What the platform answers on an operation that answers OAuth errors (`oauthErrors`), in RFC
 * 6749 JSON as the operation's own errors: RFC 6749 §5.2 has no code for a limit or a fault, so
 * these are `temporarily_unavailable` and `server_error` (RFC 6749 §4.1.2.1).
 */
const OAUTH_PLATFORM_ANSWERS: Readonly<Record<number, ResponseSpec>> = {
  429: {
    description:
      '`temporarily_unavailable`: too many requests from this client, or too many failed client authentications from this address; wait for `Retry-After`',
    schema: oauthErrorBody('temporarily_unavailable'),
    headers: { ...RETRY_AFTER, ...RATE_LIMIT_HEADERS },
  },
  500: { description: '`server_error`: an unexpected fault (no detail is given; quote `X-Request-Id`)', schema: oauthErrorBody('server_error') },
  503: {
    description: '`temporarily_unavailable`: the service cannot reach its database; retry after `Retry-After`',
    schema: oauthErrorBody('temporarily_unavailable'),
    headers: RETRY_AFTER,
  },
};

/** What an operation answers once the stopping service takes no new request (before any route, as problem+json). */
const SHUTTING_DOWN: Implied = {
  status: 503,
  description: 'The service is shutting down and takes no new request (`Connection: close`): send it again after `Retry-After`',
  reasons: ['shutting-down'],
  headers: RETRY_AFTER,
};

/** What every booking and wallet operation can give: rate limits, an unreachable database, a fault, a stop. */
function platformErrors(op: OperationSpec): Implied[] {
  if (op.surface === 'platform') return [{ status: 500, description: 'An unexpected fault (no detail is given)', reasons: ['internal-error'] }, SHUTTING_DOWN];
  const headerCheck: Implied = {
    status: 400,
    description:
      'A header that takes one value (`X-API-KEY`, `Authorization`, `Idempotency-Key`, `Content-Type`, `Content-Length`, `Host`, `X-Request-Id`) was sent more than once, a header value holds a control character, or the URL holds `%00`',
    reasons: ['invalid-request'],
  };
  // The header check and the shutdown gate answer before any route, as problem+json; the rest is the OAuth answers'.
  if (op.oauthErrors === true) return [headerCheck, SHUTTING_DOWN];
  return [
    headerCheck,
    { status: 429, description: 'Too many requests: wait for `Retry-After`', reasons: ['rate-limited'], headers: { ...RETRY_AFTER, ...RATE_LIMIT_HEADERS } },
    { status: 500, description: 'An unexpected fault (no detail is given; quote `requestId`)', reasons: ['internal-error'] },
    {
      status: 503,
      description: 'The service cannot reach its database, or is shutting down and takes no new request (`Connection: close`): retry after `Retry-After`',
      reasons: ['service-unavailable', 'shutting-down'],
      headers: RETRY_AFTER,
    },
  ];
}

/**
 * Every response an operation can give: those its author wrote, plus those the service adds from
 * the operation's credential (`token`), its request framing and the platform (rate limits,
 * database). Reasons of one status are merged, the author's first. A status the author documents
 * with a non-problem body (e.g. OAuth's RFC 6749 errors) keeps it, and gets the platform's
 * problem+json answers of that status beside it. Successes get the `RateLimit-*` headers when a
 * limiter guards the operation, and `Idempotent-Replayed` when it takes an `Idempotency-Key`.
 */
export function effectiveResponses(op: OperationSpec): Readonly<Record<number, ResponseSpec>> {
  const merged = new Map<number, ResponseSpec>();
  const limited = op.surface === 'booking' || op.surface === 'operator' || op.rateLimit !== undefined;
  for (const [status, spec] of Object.entries(op.responses)) {
    // Successes carry what the platform adds to them: the rate limiter's headers, the replay mark.
    const success = Number(status) >= 200 && Number(status) < 300;
    const headers = {
      ...(success && limited ? RATE_LIMIT_HEADERS : {}),
      ...(success && hasIdempotencyKey(op) ? IDEMPOTENT_REPLAYED : {}),
      ...spec.headers,
    };
    merged.set(Number(status), Object.keys(headers).length > 0 ? { ...spec, headers } : spec);
  }
  if (op.oauthErrors === true) {
    for (const [status, spec] of Object.entries(OAUTH_PLATFORM_ANSWERS)) if (!merged.has(Number(status))) merged.set(Number(status), spec);
  }
  const request = new Set(requestErrors(op));
  for (const implied of [...credentialErrors(op), ...request, ...platformErrors(op)]) {
    const own = merged.get(implied.status);
    if (own === undefined) {
      merged.set(implied.status, {
        description: implied.description,
        reasons: implied.reasons,
        ...(implied.headers ? { headers: implied.headers } : {}),
      });
      continue;
    }
    // A status documented with another body (OAuth's RFC 6749 errors): the request's own errors are
    // the author's; what the platform answers before the route (the header check) is added beside
    // it as problem+json.
    if (own.reasons === undefined && request.has(implied)) continue;
    const reasons = [...(own.reasons ?? []), ...implied.reasons.filter((r) => !own.reasons?.includes(r))];
    const headers = { ...implied.headers, ...own.headers };
    const description =
      own.reasons === undefined
        ? `${own.description}; or (problem+json) ${lowerFirst(implied.description)}`
        : implied.policy !== undefined
          ? `${own.description}; or ${implied.policy}`
          : own.description;
    merged.set(implied.status, { ...own, description, reasons, ...(Object.keys(headers).length > 0 ? { headers } : {}) });
  }
  return Object.fromEntries([...merged.entries()].sort(([a], [b]) => a - b));
}

const lowerFirst = (text: string): string => text.charAt(0).toLowerCase() + text.slice(1);
