import type { Response } from 'express';
import type { ProblemReason } from '../../domain/shared/errors.js';

/** An error answered by the HTTP layer itself (framing, media type, routing, limits). */
export class HttpProblem extends Error {
  override readonly name = 'HttpProblem';
  constructor(
    readonly status: number,
    readonly reason: ProblemReason,
    message: string,
    readonly extra: Record<string, unknown> = {},
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }
}

/** The `title` of a problem document, by status. */
export const TITLES: Readonly<Record<number, string>> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  409: 'Conflict',
  410: 'Gone',
  413: 'Content Too Large',
  415: 'Unsupported Media Type',
  422: 'Unprocessable Content',
  429: 'Too Many Requests',
  500: 'Internal Server Error',
  503: 'Service Unavailable',
};

/**
 * An error answer in another format than problem+json, for routes whose clients expect one (the
 * OAuth endpoints answer RFC 6749 JSON). A route sets it on `res.locals.errorAnswer` before
 * anything can fail; every error written for that request then goes through it, whoever wrote it
 * (a limiter, the error handler).
 */
export type ErrorAnswer = (res: Response, status: number, reason: string, message: string) => void;

/**
 * Writes an RFC 9457 problem document with the contract's `reason`, `message` and `requestId`,
 * or the route's own error format when it set one (`ErrorAnswer`).
 */
export function sendProblem(
  res: Response,
  status: number,
  reason: ProblemReason,
  message: string,
  extra: Record<string, unknown> = {},
): void {
  const answer = (res.locals as { errorAnswer?: ErrorAnswer }).errorAnswer;
  if (answer !== undefined) {
    answer(res, status, reason, message);
    return;
  }
  const requestId = (res.locals as { requestId?: string }).requestId ?? '';
  // For the metrics: what the answer said, without reading it back.
  (res.locals as { reason?: string }).reason = reason;
  res
    .status(status)
    .type('application/problem+json')
    .send(
      JSON.stringify({
        type: 'about:blank',
        title: TITLES[status] ?? 'Error',
        ...extra,
        status,
        reason,
        message,
        requestId,
      }),
    );
}
