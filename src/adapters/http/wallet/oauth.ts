import { type ErrorRequestHandler, type Request, type RequestHandler, type Response } from 'express';
import type { AuthenticateClient, ClientAuthentication, ClientCredentials } from '../../../application/wallet/authenticate-client.js';
import type { DpopRequestContext } from '../../../application/wallet/check-dpop-proof.js';
import { DpopRefusal } from '../../../domain/identity/dpop.js';
import type { Tenant } from '../../../domain/identity/tenant.js';
import { DomainError } from '../../../domain/shared/errors.js';
import { FORM_BODY_LIMIT, hasNul } from '../request-guards.js';
import type { ErrorAnswer } from '../problem.js';
import type { AuthFailureLimit } from '../rate-limits.js';

type OAuthErrorCode =
  | 'invalid_request'
  | 'invalid_client'
  | 'invalid_grant'
  | 'invalid_target'
  | 'invalid_dpop_proof'
  | 'unsupported_grant_type'
  | 'temporarily_unavailable'
  | 'server_error';

/**
 * An RFC 6749 §5.2 error answer of the token, revocation and introspection endpoints. §5.2 has no
 * code for a limit or a fault: those use `temporarily_unavailable` and `server_error`, the codes
 * RFC 6749 §4.1.2.1 defines for them, in the same JSON shape every OAuth client parses.
 */
export class OAuthError extends Error {
  constructor(
    readonly status: number,
    readonly code: OAuthErrorCode,
    readonly description: string,
  ) {
    super(description);
  }
}

const invalidClient = (why: string): OAuthError => new OAuthError(401, 'invalid_client', why);

const formDecode = (text: string): string => decodeURIComponent(text.replace(/\+/g, ' '));

/**
 * Reads `Authorization: Basic` client credentials (RFC 6749 §2.3.1: id and secret are
 * form-encoded before base64). Null when there is no Authorization header.
 */
function basicCredentials(header: string | undefined): ClientCredentials | null {
  if (header === undefined) return null;
  const match = /^Basic +([A-Za-z0-9+/]+=*) *$/i.exec(header);
  if (match === null) throw invalidClient('Client authentication must use HTTP Basic or the form body.');
  const decoded = Buffer.from(match[1]!, 'base64').toString('utf8');
  const sep = decoded.indexOf(':');
  if (sep < 0) throw invalidClient('Malformed HTTP Basic credentials.');
  let credentials: { clientId: string; clientSecret: string };
  try {
    credentials = { clientId: formDecode(decoded.slice(0, sep)), clientSecret: formDecode(decoded.slice(sep + 1)) };
  } catch {
    throw invalidClient('Malformed HTTP Basic credentials.');
  }
  if (hasNul(credentials.clientId) || hasNul(credentials.clientSecret)) throw invalidClient('Client authentication failed.');
  return credentials;
}

const sendOAuthError = (res: Response, err: OAuthError): void => {
  (res.locals as { reason?: string }).reason = err.code;
  res.setHeader('Cache-Control', 'no-store');
  res.setHeader('Pragma', 'no-cache');
  if (err.status === 401) res.setHeader('WWW-Authenticate', 'Basic realm="wallet", charset="UTF-8"');
  res.status(err.status).json({ error: err.code, error_description: err.description });
};

/**
 * Any other error of an OAuth endpoint (a rate limit, the failed-authentication limit, the
 * database out of reach, a fault), which the platform would answer as problem+json, as RFC 6749
 * JSON: 429 and 503 `temporarily_unavailable` (their `Retry-After` is already set), 401
 * `invalid_client`, any other client error 400 `invalid_request`, anything else 500
 * `server_error`. The problem's reason stays on `res.locals` for the metrics.
 */
const answerTheOAuthWay: ErrorAnswer = (res, status, reason, message) => {
  const err =
    status === 429 || status === 503
      ? new OAuthError(status, 'temporarily_unavailable', message)
      : status === 401
        ? invalidClient(message)
        : status >= 400 && status < 500
          ? new OAuthError(400, 'invalid_request', message)
          : new OAuthError(500, 'server_error', message);
  sendOAuthError(res, err);
  (res.locals as { reason?: string }).reason = reason;
};

/** First on every OAuth route: from here on, every error of the request is answered the OAuth way. */
export const oauthAnswers: RequestHandler = (_req, res, next) => {
  (res.locals as { errorAnswer?: ErrorAnswer }).errorAnswer = answerTheOAuthWay;
  next();
};

/**
 * The form parameters, each present at most once and free of NUL characters. A name in
 * `repeatable` may appear several times (RFC 8693 §2.1: `audience`, `resource`): it is left out of
 * the answer, and read with `formValuesOf`.
 */
export function formOf(req: Request, repeatable: readonly string[] = []): Record<string, string> {
  const body = (req.body ?? {}) as Record<string, unknown>;
  // A copy only when some parameters are left out of it.
  const form: Record<string, string> | null = repeatable.length === 0 ? null : (Object.create(null) as Record<string, string>);
  for (const name in body) {
    if (!Object.hasOwn(body, name)) continue;
    if (repeatable.includes(name)) {
      formValuesOf(req, name);
      continue;
    }
    const value = body[name];
    if (typeof value !== 'string') throw new OAuthError(400, 'invalid_request', `Parameter ${name} must appear once.`);
    // PostgreSQL text cannot hold a NUL: refuse it here, as a bad client or a bad request.
    if (hasNul(value) || hasNul(name)) {
      if (name === 'client_id' || name === 'client_secret') throw invalidClient('Client authentication failed.');
      throw new OAuthError(400, 'invalid_request', `Parameter ${name.replaceAll('\u0000', '')} holds a NUL character.`);
    }
    if (form !== null) form[name] = value;
  }
  return form ?? (body as Record<string, string>);
}

/** Every value of a parameter that may be repeated (none when it is absent), each free of NUL characters. */
export function formValuesOf(req: Request, name: string): string[] {
  const body = (req.body ?? {}) as Record<string, unknown>;
  const value = Object.hasOwn(body, name) ? body[name] : undefined;
  if (value === undefined) return [];
  const values = Array.isArray(value) ? (value as unknown[]) : [value];
  if (values.some((v) => typeof v !== 'string' || hasNul(v))) {
    throw new OAuthError(400, 'invalid_request', `Parameter ${name} must be text without a NUL character.`);
  }
  return values as string[];
}

/** The client's credentials, from HTTP Basic or the form body (not both). */
export function credentialsOf(req: Request, form: Record<string, string>): ClientCredentials {
  const basic = basicCredentials(req.headers.authorization);
  const formId = form.client_id;
  const formSecret = form.client_secret;
  if (basic !== null) {
    if (formSecret !== undefined || (formId !== undefined && formId !== basic.clientId)) {
      throw new OAuthError(400, 'invalid_request', 'Use one client authentication method, not both.');
    }
    return basic;
  }
  if (!formId || !formSecret) throw invalidClient('Client authentication is required.');
  return { clientId: formId, clientSecret: formSecret };
}

/**
 * How the client authenticates: a JWT client assertion (`client_assertion_type` and
 * `client_assertion`, RFC 7523 §2.2, with an optional `client_id` that must be its issuer), or
 * its secret (HTTP Basic or the form body). Two methods at once are `invalid_request`.
 */
export function clientAuthenticationOf(req: Request, form: Record<string, string>): ClientAuthentication {
  const assertionType = form.client_assertion_type;
  const assertion = form.client_assertion;
  if (assertionType === undefined && assertion === undefined) return credentialsOf(req, form);
  if (req.headers.authorization !== undefined || form.client_secret !== undefined) {
    throw new OAuthError(400, 'invalid_request', 'Use one client authentication method, not both.');
  }
  if (!assertionType || !assertion) {
    throw new OAuthError(400, 'invalid_request', 'client_assertion_type and client_assertion go together.');
  }
  return {
    clientAssertionType: assertionType,
    clientAssertion: assertion,
    ...(form.client_id === undefined ? {} : { clientId: form.client_id }),
  };
}

/**
 * The DPoP context of a request (RFC 9449): its `DPoP` header values as received, its method,
 * and its public URL, the issuer's origin (`TOKEN_ISSUER`, as the metadata publishes the
 * endpoints) joined with the path the request reached the service at, without the query.
 */
export function dpopRequestOf(req: Request, publicOrigin: string): DpopRequestContext {
  return new RequestDpop(req, publicOrigin);
}

/**
 * The DPoP context of `dpopRequestOf`. Most requests carry no proof: their header values are
 * not read apart (Node builds them for every header at once), and their URL, which only a
 * proof's check reads, is made when first read.
 */
class RequestDpop implements DpopRequestContext {
  readonly proof: string | readonly string[] | undefined;
  readonly method: string;
  private madeUrl: string | undefined;

  constructor(
    private readonly req: Request,
    private readonly publicOrigin: string,
  ) {
    // A header sent at all is in `headers`, even empty, so its absence there is its absence.
    const values = req.headers.dpop === undefined ? undefined : req.headersDistinct.dpop;
    this.proof = values === undefined ? undefined : values.length === 1 ? values[0] : values;
    this.method = req.method;
  }

  get url(): string {
    return (this.madeUrl ??= `${this.publicOrigin.replace(/\/+$/, '')}${this.req.originalUrl.split('?')[0]!.split('#')[0]!}`);
  }
}

/**
 * The domain refusals of a token request as RFC 6749 / 8693 / 9449 errors: a failed client
 * authentication `invalid_client` (401), a refused DPoP proof `invalid_dpop_proof` (400), a bad
 * subject token or a disabled subject `invalid_grant`, an audience or resource not served
 * `invalid_target` (RFC 8693 §2.2.2), a malformed request `invalid_request`.
 * Anything else is left to the OAuth error answer (503 `temporarily_unavailable`, say).
 */
export const asOAuthError = (err: unknown): unknown => {
  if (err instanceof DpopRefusal) return new OAuthError(400, 'invalid_dpop_proof', err.message);
  if (!(err instanceof DomainError)) return err;
  switch (err.reason) {
    case 'invalid-client':
      return invalidClient('Client authentication failed.');
    case 'invalid-grant':
      return new OAuthError(400, 'invalid_grant', err.message);
    case 'invalid-target':
      return new OAuthError(400, 'invalid_target', err.message);
    case 'user-disabled':
      return new OAuthError(400, 'invalid_grant', err.message);
    case 'invalid-request':
      return new OAuthError(400, 'invalid_request', err.message);
    default:
      return err;
  }
};

/**
 * The form's `token` parameter (RFC 7009 §2.1, RFC 7662 §2.1). A value that cannot be a token
 * (too long, say) is still answered like any unknown token, not as a malformed request.
 */
export function formTokenOf(form: Record<string, string>): string {
  const token = form.token;
  if (token === undefined || token === '') throw new OAuthError(400, 'invalid_request', 'token is required.');
  return token;
}

/**
 * Any error of an OAuth endpoint, answered as RFC 6749 §5.2 JSON: its own errors, and a body
 * that is not a readable form (400 `invalid_request`, saying what is wrong with it).
 */
export const oauthErrors: ErrorRequestHandler = (err, _req, res, next) => {
  if (err instanceof OAuthError) return sendOAuthError(res, err);
  const bodyError = err as { status?: number; type?: string; reason?: string };
  // A body that is not a readable form is a malformed request, answered the OAuth way
  // (RFC 6749 §5.2: 400 invalid_request), saying what is wrong with it.
  if (bodyError.reason === 'unsupported-media-type') {
    return sendOAuthError(res, new OAuthError(400, 'invalid_request', 'The body must be application/x-www-form-urlencoded.'));
  }
  if (bodyError.type !== undefined && bodyError.status !== undefined && bodyError.status < 500) {
    const description =
      bodyError.type === 'entity.too.large'
        ? `The form body is larger than ${FORM_BODY_LIMIT}.`
        : bodyError.type === 'parameters.too.many'
          ? 'The form body has too many parameters.'
          : bodyError.type === 'encoding.unsupported' || bodyError.type === 'charset.unsupported'
            ? 'The form body’s encoding or charset is not supported (send UTF-8, without Content-Encoding).'
            : 'The form body could not be read.';
    return sendOAuthError(res, new OAuthError(400, 'invalid_request', description));
  }
  next(err);
};
/** The client authenticated from the request (HTTP Basic, the form or a client assertion), refused as `invalid_client`. */
export async function authenticatedClient(
  req: Request,
  form: Record<string, string>,
  authenticateClient: AuthenticateClient,
  failures: AuthFailureLimit,
): Promise<Tenant> {
  const credentials = clientAuthenticationOf(req, form);
  try {
    // An address that failed too often is refused before the client's secret is looked up.
    return await failures.guard(req, () => authenticateClient.execute(credentials));
  } catch (err) {
    throw asOAuthError(err);
  }
}

/** The headers of every OAuth answer (RFC 6749 §5.1). */
export const OAUTH_NO_STORE: Readonly<Record<string, string>> = { 'Cache-Control': 'no-store', Pragma: 'no-cache' };
