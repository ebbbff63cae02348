import type { RequestHandler } from 'express';
import { sendProblem } from './problem.js';

/**
 * Headers that carry one value. Sent twice they are ambiguous (which key, which body length, which
 * idempotency key?), and different layers may pick different copies: refuse the request.
 */
export const SINGLE_VALUE_HEADERS: readonly string[] = [
  'x-api-key',
  'authorization',
  'idempotency-key',
  'content-type',
  'content-length',
  'host',
  'x-request-id',
];

// Node's parser already refuses CR, LF and NUL in a header; this also refuses the other control
// characters (HTAB stays legal) in case a proxy in front decoded them.
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const CONTROL = /[\u0000-\u0008\u000a-\u001f\u007f]/;

/**
 * Refuses repeated single-value headers, header values with control characters, and a path or
 * query string carrying an encoded NUL (`%00`), which PostgreSQL text cannot hold: 400
 * invalid-request, before any route reads the URL.
 */
export const headerGuard: RequestHandler = (req, res, next) => {
  if (req.url.includes('%00')) {
    sendProblem(res, 400, 'invalid-request', 'The URL holds a NUL character (%00), which no path or parameter accepts.', {
      errors: [{ path: 'url', message: 'must not contain a NUL character' }],
    });
    return;
  }
  const raw = req.rawHeaders;
  // Fast path: no header name appears twice (in any case) exactly when Node's parsed headers have
  // one entry per raw pair; then only the values need checking.
  if (Object.keys(req.headers).length * 2 === raw.length) {
    for (let i = 1; i < raw.length; i += 2) {
      if (CONTROL.test(raw[i] as string)) {
        sendProblem(res, 400, 'invalid-request', 'A request header holds a control character.');
        return;
      }
    }
    next();
    return;
  }
  const seen = new Set<string>();
  for (let i = 0; i < raw.length; i += 2) {
    const name = (raw[i] as string).toLowerCase();
    if (CONTROL.test(raw[i + 1] as string)) {
      sendProblem(res, 400, 'invalid-request', 'A request header holds a control character.');
      return;
    }
    if (!SINGLE_VALUE_HEADERS.includes(name)) continue;
    if (seen.has(name)) {
      sendProblem(res, 400, 'invalid-request', `The ${name} header must be sent once.`, {
        errors: [{ path: `headers.${name}`, message: 'repeated' }],
      });
      return;
    }
    seen.add(name);
  }
  next();
};
