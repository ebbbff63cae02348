import { Router, type ErrorRequestHandler, type RequestHandler, type Response } from 'express';
import type { IssueMachineToken } from '../../../application/wallet/issue-machine-token.js';
import { DomainError } from '../../../domain/shared/errors.js';
import { FORM_BODY_LIMIT, formBody } from '../body.js';
import { hasNul } from '../json-guard.js';
import type { AuthFailureLimit } from '../rate-limits.js';

type OAuthErrorCode = 'invalid_request' | 'invalid_client' | 'unsupported_grant_type';

/** An RFC 6749 §5.2 error answer of the token endpoint. */
class OAuthError extends Error {
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
function basicCredentials(header: string | undefined): { clientId: string; clientSecret: string } | null {
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
 * `POST /oauth/token`: the OAuth 2.0 client credentials grant (RFC 6749 §4.4), form-encoded,
 * client authentication by HTTP Basic or `client_id`/`client_secret` in the body (not both).
 * Errors are RFC 6749 §5.2 JSON, not problem+json, so OAuth client libraries understand them.
 */
export function oauthRoutes(deps: { issueMachineToken: IssueMachineToken; limit: RequestHandler; failures?: AuthFailureLimit }): Router {
  const router = Router();
  router.post('/oauth/token', formBody, deps.limit, async (req, res) => {
    res.setHeader('Cache-Control', 'no-store');
    res.setHeader('Pragma', 'no-cache');
    const body = (req.body ?? {}) as Record<string, unknown>;
    for (const [name, value] of Object.entries(body)) {
      if (typeof value !== 'string') throw new OAuthError(400, 'invalid_request', `Parameter ${name} must appear once.`);
      // PostgreSQL text cannot hold a NUL: refuse it here, as a bad client or a bad request.
      if (hasNul(value) || hasNul(name)) {
        if (name === 'client_id' || name === 'client_secret') throw invalidClient('Client authentication failed.');
        throw new OAuthError(400, 'invalid_request', `Parameter ${name.replace(/\u0000/g, '')} holds a NUL character.`);
      }
    }
    const grantType = body.grant_type as string | undefined;
    if (grantType === undefined || grantType === '') throw new OAuthError(400, 'invalid_request', 'grant_type is required.');
    if (grantType !== 'client_credentials') {
      throw new OAuthError(400, 'unsupported_grant_type', 'Only the client_credentials grant is supported.');
    }
    const basic = basicCredentials(req.headers.authorization);
    const formId = body.client_id as string | undefined;
    const formSecret = body.client_secret as string | undefined;
    let credentials: { clientId: string; clientSecret: string };
    if (basic !== null) {
      if (formSecret !== undefined || (formId !== undefined && formId !== basic.clientId)) {
        throw new OAuthError(400, 'invalid_request', 'Use one client authentication method, not both.');
      }
      credentials = basic;
    } else {
      if (!formId || !formSecret) throw invalidClient('Client authentication is required.');
      credentials = { clientId: formId, clientSecret: formSecret };
    }
    try {
      // An address that failed too often is refused before the client's secret is looked up.
      const issue = () => deps.issueMachineToken.execute(credentials);
      const token = deps.failures === undefined ? await issue() : await deps.failures.guard(req, issue);
      res.status(200).json({ access_token: token.accessToken, token_type: 'Bearer', expires_in: token.expiresIn });
    } catch (err) {
      if (err instanceof DomainError && err.reason === 'invalid-client') throw invalidClient('Client authentication failed.');
      throw err;
    }
  });
  const oauthErrors: ErrorRequestHandler = (err, _req, res, next) => {
    if (err instanceof OAuthError) return sendOAuthError(res, err);
    const bodyError = err as { status?: number; type?: string; reason?: string };
    // A body that is not a readable form is a malformed token request, answered the OAuth way
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
  router.use('/oauth/token', oauthErrors);
  return router;
}
