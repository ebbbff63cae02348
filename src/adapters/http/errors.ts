import type { ErrorRequestHandler, RequestHandler } from 'express';
import type { Logger } from 'pino';
import { ZodError } from 'zod';
import { DomainError, type ErrorKind, type ProblemReason } from '../../domain/shared/errors.js';
import { redactSecrets } from '../../domain/shared/redaction.js';
import { HttpProblem, sendProblem } from './problem.js';

const STATUS_BY_KIND: Readonly<Record<ErrorKind, number>> = {
  unauthenticated: 401,
  forbidden: 403,
  'not-found': 404,
  conflict: 409,
  gone: 410,
  invalid: 400,
  unprocessable: 422,
  'too-many': 429,
  unavailable: 503,
};

/** The status a domain error kind answers with. */
export const statusOf = (kind: ErrorKind): number => STATUS_BY_KIND[kind];

/** Turns zod issues into the contract's `errors: [{ path, message }]`. */
export const zodIssues = (err: ZodError): Array<{ path: string; message: string }> =>
  err.issues.slice(0, 20).map((i) => ({ path: i.path.map(String).join('.') || '(root)', message: i.message }));

/** Answers every route that matched nothing. */
export const notFoundHandler: RequestHandler = (_req, res) => {
  sendProblem(res, 404, 'not-found', 'No such resource.');
};

/** Is this error a database that cannot be reached, a pool with no free connection, or a database too busy to answer in time? */
export const isDatabaseUnavailable = (err: unknown): boolean => {
  if (typeof err !== 'object' || err === null) return false;
  const e = err as { name?: string; code?: string; message?: string };
  if (e.name === 'KnexTimeoutError') return true;
  if (
    e.code !== undefined &&
    ['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', '57P01', '57P02', '57P03', '53300', '08006', '08001', '08003'].includes(e.code)
  )
    return true;
  // A statement or lock wait over its timeout, or a serialization failure or deadlock that its
  // retries did not resolve: the database is overloaded or contended, and a retry may succeed.
  if (e.code !== undefined && ['57014', '55P03', '40001', '40P01'].includes(e.code)) return true;
  return /Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error/i.test(e.message ?? '');
};

/**
 * Is this PostgreSQL refusing a value the client sent (SQLSTATE class 22, "data exception": a NUL
 * or other character the encoding cannot hold, text that is not a valid number or date, a value
 * out of range)? Input checks should have refused it first; this keeps one that slipped through
 * a 400 rather than a 500.
 */
export const isDataException = (err: unknown): boolean => {
  if (typeof err !== 'object' || err === null) return false;
  const code = (err as { code?: unknown }).code;
  return typeof code === 'string' && /^22[0-9A-Z]{3}$/.test(code);
};

/**
 * A write that a constraint of the database refused (SQLSTATE 23514 check, 23502 not null, 23505
 * unique, 23503 foreign key). The domain checks every rule before writing and the adapters
 * handle the unique keys they expect, so reaching here means a rule the checks missed, or a race
 * the constraint decided: a refusal of this request, never a fault of the service.
 * - a balance that would go below zero (`ledger_accounts_never_negative`): 422 `insufficient-funds`;
 * - any other CHECK or NOT NULL: 422 `invalid-request`, the values break a rule of the stored data;
 * - a unique key or a reference that is missing: 409 `conflict`, the stored data changed
 *   underneath the request, which may succeed if sent again.
 * The constraint's name is logged; its SQL and values never leave the service.
 */
export const constraintProblemOf = (
  err: unknown,
): { status: number; reason: ProblemReason; message: string; constraint: string | null } | null => {
  if (typeof err !== 'object' || err === null) return null;
  const { code, constraint } = err as { code?: unknown; constraint?: unknown };
  const name = typeof constraint === 'string' && constraint !== '' ? constraint : null;
  if (code === '23514' || code === '23502') {
    return name === 'ledger_accounts_never_negative'
      ? { status: 422, reason: 'insufficient-funds', message: 'The balance is too low for this amount.', constraint: name }
      : { status: 422, reason: 'invalid-request', message: 'The request breaks a rule of the stored data.', constraint: name };
  }
  if (code === '23505' || code === '23503') {
    return { status: 409, reason: 'conflict', message: 'The request conflicts with data stored meanwhile. Retry it.', constraint: name };
  }
  return null;
};

/**
 * The one place errors become responses. Only errors the service raised on purpose show their
 * message; anything else is logged with the request id and answered without detail.
 */
export const errorHandler =
  (log: Logger): ErrorRequestHandler =>
  (err, req, res, next) => {
    if (res.headersSent) {
      next(err);
      return;
    }
    if (err instanceof DomainError) {
      if (err.reason === 'invalid-token') {
        res.setHeader('WWW-Authenticate', 'Bearer error="invalid_token"');
      }
      sendProblem(res, statusOf(err.kind), err.reason, err.message, err.details ?? {});
      return;
    }
    if (err instanceof HttpProblem) {
      for (const [name, value] of Object.entries(err.headers)) res.setHeader(name, value);
      sendProblem(res, err.status, err.reason, err.message, err.extra);
      return;
    }
    if (err instanceof ZodError) {
      sendProblem(res, 400, 'invalid-request', 'The request does not match the schema.', { errors: zodIssues(err) });
      return;
    }
    const bodyErr = err as { type?: string; status?: number };
    switch (bodyErr.type) {
      case 'entity.parse.failed':
        sendProblem(res, 400, 'malformed-json', 'The request body is not valid JSON.');
        return;
      case 'entity.too.large':
        sendProblem(res, 413, 'payload-too-large', 'The request body is too large.');
        return;
      case 'encoding.unsupported':
      case 'charset.unsupported':
        sendProblem(res, 415, 'unsupported-media-type', 'The request body encoding is not supported.');
        return;
      case 'request.aborted':
      case 'request.size.invalid':
      case 'stream.encoding.set':
        sendProblem(res, 400, 'invalid-request', 'The request body could not be read.');
        return;
      default:
        // Any other client-side body failure (e.g. a body that does not match its Content-Encoding).
        if (typeof bodyErr.status === 'number' && bodyErr.status >= 400 && bodyErr.status < 500) {
          const status = bodyErr.status === 415 || bodyErr.status === 413 ? bodyErr.status : 400;
          const reason = status === 415 ? 'unsupported-media-type' : status === 413 ? 'payload-too-large' : 'invalid-request';
          sendProblem(res, status, reason, 'The request body could not be read.');
          return;
        }
    }
    if (isDatabaseUnavailable(err)) {
      log.warn(
        { requestId: res.locals.requestId, err: { name: (err as Error).name, code: (err as { code?: string }).code } },
        'database unavailable',
      );
      res.setHeader('Retry-After', '1');
      sendProblem(res, 503, 'service-unavailable', 'The service is temporarily unavailable. Retry shortly.');
      return;
    }
    if (isDataException(err)) {
      log.warn(
        {
          requestId: res.locals.requestId,
          method: req.method,
          path: redactSecrets(req.path),
          err: { code: (err as { code?: string }).code },
        },
        'value refused by the database',
      );
      sendProblem(res, 400, 'invalid-request', 'A value in the request cannot be stored or compared.');
      return;
    }
    const refused = constraintProblemOf(err);
    if (refused !== null) {
      log.warn(
        {
          requestId: res.locals.requestId,
          method: req.method,
          path: redactSecrets(req.path),
          err: { code: (err as { code?: string }).code, constraint: refused.constraint },
        },
        'write refused by a database constraint',
      );
      sendProblem(res, refused.status, refused.reason, refused.message);
      return;
    }
    log.error({ requestId: res.locals.requestId, method: req.method, path: redactSecrets(req.path), err }, 'unhandled error');
    sendProblem(res, 500, 'internal-error', 'An internal error occurred.');
  };
