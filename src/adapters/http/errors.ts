import type { ErrorRequestHandler, RequestHandler } from 'express';
import type { Logger } from 'pino';
import { ZodError } from 'zod';
import { DomainError, type ErrorKind } from '../../domain/shared/errors.js';
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

/** The failures of the stores' own machinery (the database, its driver) that a persistence adapter knows, as the domain's errors. */
export type ErrorTranslator = (err: unknown) => DomainError | null;

/**
 * The one place errors become responses. Only errors the service raised on purpose show their
 * message; a failure the persistence adapter translates (`translate`: the database unreachable, a
 * value or a write it refused) answers as that domain error, logged with its code and constraint;
 * anything else is logged with the request id and answered without detail.
 */
export const errorHandler =
  (log: Logger, translate: ErrorTranslator = () => null): ErrorRequestHandler =>
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
    const refused = translate(err);
    if (refused !== null) {
      const { code, constraint } = err as { code?: string; constraint?: string };
      log.warn(
        {
          requestId: res.locals.requestId,
          method: req.method,
          path: redactSecrets(req.path),
          err: { name: (err as Error).name, code, constraint },
        },
        `the database refused the request: ${refused.reason}`,
      );
      if (refused.kind === 'unavailable') res.setHeader('Retry-After', '1');
      sendProblem(res, statusOf(refused.kind), refused.reason, refused.message);
      return;
    }
    log.error({ requestId: res.locals.requestId, method: req.method, path: redactSecrets(req.path), err }, 'unhandled error');
    sendProblem(res, 500, 'internal-error', 'An internal error occurred.');
  };
