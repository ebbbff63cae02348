import express, { type Request, type RequestHandler } from 'express';
import { finished } from 'node:stream';
import qs from 'qs';
import getRawBody from 'raw-body';
import { HttpProblem, sendProblem } from './problem.js';

/**
 * Whether the stopping service still takes new requests: the service's lifecycle itself, read on
 * every request with no function of the composition root in between.
 */
export interface ShutdownState {
  /** True once a stopping service refuses new requests (the ones in flight still finish). */
  readonly refusing: boolean;
}

/**
 * Refuses every request once the stopping service takes no new work: 503 `shutting-down` with
 * `Retry-After` and `Connection: close`, so the client sends it again on a new connection (to
 * another instance) and never reuses this one. Nothing of the request has been done.
 */
export function shutdownGate(state: ShutdownState): RequestHandler {
  return (_req, res, next) => {
    if (!state.refusing) {
      next();
      return;
    }
    res.setHeader('Connection', 'close');
    res.setHeader('Retry-After', '1');
    res.setHeader('Cache-Control', 'no-store');
    sendProblem(res, 503, 'shutting-down', 'The service is shutting down: send the request again.');
  };
}

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

/**
 * Runs a middleware that only sets fixed response headers (helmet with static options) once, at
 * start, and returns a middleware that applies the recorded headers: the same headers for the
 * cost of one middleware instead of a dozen. When the middleware turns out to read the request,
 * to answer by itself or to call `next` later, its headers may vary, and it is returned as is.
 */
export function precomputedHeaders(middleware: RequestHandler): RequestHandler {
  const set: Array<[string, string | number | readonly string[]]> = [];
  const removed: string[] = [];
  let readRequest = false;
  let passed = false;
  let unexpected = false;
  const req = new Proxy(
    {},
    {
      get: () => {
        readRequest = true;
        return undefined;
      },
    },
  );
  const res = new Proxy(
    {
      setHeader: (name: string, value: string | number | readonly string[]) => {
        set.push([name, value]);
        return res;
      },
      removeHeader: (name: string) => {
        removed.push(name);
      },
    },
    {
      get: (target, prop) => {
        if (prop === 'setHeader' || prop === 'removeHeader') return target[prop];
        unexpected = true;
        return undefined;
      },
    },
  );
  try {
    void middleware(req as never, res as never, (err?: unknown) => {
      if (err !== undefined) unexpected = true;
      passed = true;
    });
  } catch {
    unexpected = true;
  }
  if (readRequest || unexpected || !passed) return middleware;
  return (_req, response, next) => {
    for (const name of removed) response.removeHeader(name);
    for (const [name, value] of set) response.setHeader(name, value);
    next();
  };
}

/**
 * How deeply a JSON body may nest. No operation takes more than a few levels; the bound keeps
 * every later step that walks the body (canonical JSON, logging, validation) far from the stack
 * limit, whatever a client sends.
 */
export const JSON_MAX_DEPTH = 32;

/** A NUL character: PostgreSQL text cannot hold it, so no input may carry one to the database. */
export const hasNul = (text: string): boolean => text.includes('\u0000');

/**
 * Checks a parsed JSON body without recursion: nesting within JSON_MAX_DEPTH, and no NUL in any
 * string or member name. Throws HttpProblem 400 `invalid-request` naming the first offending path.
 */
export function checkJsonBody(body: unknown): void {
  const stack: Array<{ value: unknown; depth: number; path: string }> = [{ value: body, depth: 0, path: '' }];
  while (stack.length > 0) {
    const { value, depth, path } = stack.pop()!;
    if (typeof value === 'string') {
      if (hasNul(value)) throw nulAt(path);
      continue;
    }
    if (value === null || typeof value !== 'object') continue;
    if (depth >= JSON_MAX_DEPTH) {
      throw new HttpProblem(400, 'invalid-request', `The JSON body nests deeper than ${JSON_MAX_DEPTH} levels.`, {
        errors: [{ path: path || '(root)', message: `nests deeper than ${JSON_MAX_DEPTH} levels` }],
      });
    }
    if (Array.isArray(value)) {
      for (let i = value.length - 1; i >= 0; i -= 1) stack.push({ value: value[i], depth: depth + 1, path: join(path, String(i)) });
      continue;
    }
    for (const key of Object.keys(value)) {
      if (hasNul(key)) throw nulAt(join(path, key.replaceAll('\u0000', '\\u0000')));
      stack.push({ value: (value as Record<string, unknown>)[key], depth: depth + 1, path: join(path, key) });
    }
  }
}

const join = (path: string, key: string): string => (path === '' ? key : `${path}.${key}`);

const nulAt = (path: string): HttpProblem =>
  new HttpProblem(400, 'invalid-request', 'The request holds a NUL character (U+0000), which no field accepts.', {
    errors: [{ path: path || '(root)', message: 'must not contain a NUL character' }],
  });

/** The largest JSON body accepted. */
export const JSON_BODY_LIMIT = '64kb';

const hasBody = (headers: { 'content-length'?: string | undefined; 'transfer-encoding'?: string | undefined }): boolean =>
  headers['transfer-encoding'] !== undefined || (headers['content-length'] !== undefined && headers['content-length'] !== '0');

// Not strict: any JSON text parses, and a body that is JSON but not an object is the request's
// error (invalid-request), not malformed JSON.
const parseJson = express.json({ limit: JSON_BODY_LIMIT, strict: false, type: ['application/json', 'application/*+json'] });

const notAnObject = (): HttpProblem =>
  new HttpProblem(400, 'invalid-request', 'The request body must be a JSON object.', {
    errors: [{ path: '(root)', message: 'must be a JSON object' }],
  });

/**
 * For routes that take JSON: a body of another media type is 415, a malformed one 400, an
 * oversized one 413 (the error handler maps the parser's errors), one that is not a JSON object
 * (a scalar, null, an array), nested too deeply or holding a NUL character 400
 * `invalid-request`, before any later step walks it. A request with
 * no body gets an empty object, which the route's schema then judges.
 */
export const jsonBody: RequestHandler = (req, res, next) => {
  if (!hasBody(req.headers)) {
    req.body = {};
    next();
    return;
  }
  if (req.is(['application/json', 'application/*+json']) === false) {
    next(new HttpProblem(415, 'unsupported-media-type', 'The request body must be application/json.'));
    return;
  }
  parseJson(req, res, (err?: unknown) => {
    if (err !== undefined) {
      next(err);
      return;
    }
    if (req.body === null || typeof req.body !== 'object' || Array.isArray(req.body)) {
      next(notAnObject());
      return;
    }
    try {
      checkJsonBody(req.body);
    } catch (problem) {
      next(problem);
      return;
    }
    next();
  });
};

/** The largest form body accepted (the OAuth token endpoint). */
export const FORM_BODY_LIMIT = '16 KiB';

const FORM_PARAMETER_LIMIT = 50;
const parseForm = express.urlencoded({ limit: '16kb', extended: false, parameterLimit: FORM_PARAMETER_LIMIT });

const FORM = 'application/x-www-form-urlencoded';

/**
 * A form as OAuth clients send it: exactly `application/x-www-form-urlencoded`, UTF-8 (said or
 * not), not compressed. Anything else (another charset, refused; a compressed body, another
 * spelling of the type) goes through body-parser.
 */
const isPlainForm = (req: Request): boolean => {
  const encoding = req.headers['content-encoding'];
  if (encoding !== undefined && encoding.toLowerCase() !== 'identity') return false;
  const type = req.headers['content-type']?.toLowerCase();
  return type === FORM || type === `${FORM}; charset=utf-8` || type === `${FORM};charset=utf-8`;
};

/**
 * The `charset` parameter of a media type (RFC 9110 §8.3.1: the name without case, the value
 * unquoted, compared without case), or null when it has none.
 */
const charsetOf = (type: string): string | null => {
  for (const param of type.split(';').slice(1)) {
    const eq = param.indexOf('=');
    if (eq < 0 || param.slice(0, eq).trim().toLowerCase() !== 'charset') continue;
    return param
      .slice(eq + 1)
      .trim()
      .replace(/^"(.*)"$/, '$1')
      .toLowerCase();
  }
  return null;
};

/** body-parser's answer to a body in a charset it does not read. */
const unsupportedCharset = (charset: string): Error =>
  Object.assign(new Error(`unsupported charset "${charset.toUpperCase()}"`), {
    status: 415,
    statusCode: 415,
    expose: true,
    type: 'charset.unsupported',
    charset,
  });

/** body-parser's answer to a form with more than `FORM_PARAMETER_LIMIT` parameters. */
const tooManyParameters = (): Error =>
  Object.assign(new Error('too many parameters'), { status: 413, statusCode: 413, expose: true, type: 'parameters.too.many' });

/** A form component decoded as body-parser's query-string parser (qs) decodes it. */
const decodeComponent = (text: string): string => {
  const spaced = text.includes('+') ? text.replace(/\+/g, ' ') : text;
  if (!spaced.includes('%')) return spaced;
  try {
    return decodeURIComponent(spaced);
  } catch {
    return spaced;
  }
};

/** Brackets (or their escapes) make qs build arrays and strip names: such forms go to qs itself. */
const BRACKETS = /[[\]]|%5b|%5d/i;

/**
 * The parameters of a form body, exactly as body-parser's simple (not extended) parser gives
 * them: a name given twice holds an array of its values, a part without `=` an empty value, a
 * part without a name is skipped; '+' is a space, percent escapes are decoded and a malformed
 * escape is kept as it is. A form with brackets in it is left to qs, with body-parser's options.
 */
export function parseFormText(text: string): Record<string, unknown> {
  if (text.length === 0) return {};
  let count = 1;
  for (let i = text.indexOf('&'); i !== -1; i = text.indexOf('&', i + 1)) {
    count += 1;
    if (count > FORM_PARAMETER_LIMIT) throw tooManyParameters();
  }
  if (BRACKETS.test(text)) {
    return qs.parse(text, { allowPrototypes: true, arrayLimit: count, depth: 0, parameterLimit: FORM_PARAMETER_LIMIT, strictDepth: true });
  }
  const out: Record<string, string | string[]> = {};
  for (const part of text.split('&')) {
    if (part === '') continue;
    const eq = part.indexOf('=');
    const name = decodeComponent(eq < 0 ? part : part.slice(0, eq));
    // qs skips a part without a name; its assignment to `__proto__` changes nothing.
    if (name === '' || name === '__proto__') continue;
    const value = eq < 0 ? '' : decodeComponent(part.slice(eq + 1));
    const seen = Object.prototype.hasOwnProperty.call(out, name) ? out[name] : undefined;
    if (seen === undefined) out[name] = value;
    else if (Array.isArray(seen)) seen.push(value);
    else out[name] = [seen, value];
  }
  return out;
}

/**
 * For routes that take `application/x-www-form-urlencoded` (the OAuth endpoints). The plain
 * form every OAuth client sends is read by raw-body (the reader body-parser itself uses, with
 * the same length check and 16 KiB limit) and split by `URLSearchParams`: body-parser's media
 * type, charset and query-string layers around it were a tenth of a token's time on the event
 * loop. Any other form goes through body-parser, and every failure answers as body-parser's.
 */
export const formBody: RequestHandler = (req, res, next) => {
  if (!hasBody(req.headers)) {
    req.body = {};
    next();
    return;
  }
  if (isPlainForm(req)) {
    getRawBody(req, { length: req.headers['content-length'] ?? null, limit: '16kb', encoding: 'utf-8' }, (err, text) => {
      if (err) {
        // As body-parser does: read off the rest of the request, then answer the error.
        finished(req, () => next(err));
        req.resume();
        return;
      }
      try {
        req.body = parseFormText(text);
      } catch (problem) {
        next(problem);
        return;
      }
      next();
    });
    return;
  }
  if (req.is('application/x-www-form-urlencoded') === false) {
    next(new HttpProblem(415, 'unsupported-media-type', 'The request body must be application/x-www-form-urlencoded.'));
    return;
  }
  // body-parser also reads ISO-8859-1; a form here is UTF-8 only (said or not), as OAuth clients send it.
  const charset = charsetOf(req.headers['content-type'] ?? '');
  if (charset !== null && charset !== 'utf-8') {
    next(unsupportedCharset(charset));
    return;
  }
  parseForm(req, res, next);
};
