import { createHash } from 'node:crypto';
import type { RequestHandler, Response } from 'express';
import type { IdempotentWrites } from '../../application/idempotent-writes.js';
import { DomainError } from '../../domain/shared/errors.js';
import type { IdempotencyRequest, StoredResponse } from '../../domain/shared/idempotency.port.js';
import { isValidIdempotencyKey } from '../../domain/shared/idempotency.js';

/** Names the caller an idempotency key belongs to (agent, tenant backend or wallet user). */
export type ScopeOf = (res: Response) => string;

/** How a route's answers are stored for replay. */
export interface IdempotentOptions {
  /**
   * Top-level fields of the JSON answer that hold a secret shown once (a new API key): sent to
   * the caller, never stored, so a replay answers without them. An answer that cannot be read as
   * a JSON object is then not stored at all: a retry runs again rather than keep a secret.
   */
  readonly secretFields?: readonly string[];
}

/** Builds the `Idempotency-Key` middleware for a write route; it runs after body parsing and auth. */
export type Idempotent = (scopeOf: ScopeOf, options?: IdempotentOptions) => RequestHandler;

/** The response headers that describe the resource, stored and replayed with the body. */
const REPLAYED_HEADERS = ['location', 'cache-control'] as const;

/**
 * `Idempotency-Key` for writes that move money or stock, on `IdempotentWrites`: the claim of the
 * key, the handler's writes and its stored answer commit together, in one unit of work. The first
 * successful (2xx) response is stored and replayed for the same key, caller and request, with
 * `Idempotent-Replayed: true` and the same status, body, `Content-Type`, `Location` and
 * `Cache-Control`. A duplicate that arrives while the first runs waits for it, then replays; a
 * failed request (or a crash of the instance) rolls the claim back with its writes, so that a
 * retry runs again. The answer leaves only once it is committed.
 */
export const idempotency =
  (writes: IdempotentWrites): Idempotent =>
  (scopeOf, options = {}) =>
  async (req, res, next) => {
    const key = req.headers['idempotency-key'];
    if (key === undefined) {
      next();
      return;
    }
    if (typeof key !== 'string' || !isValidIdempotencyKey(key)) {
      throw new DomainError('invalid-request', {
        message: 'Idempotency-Key must be 1 to 255 visible ASCII characters.',
        details: {
          errors: [{ path: 'header.Idempotency-Key', message: 'must be 1 to 255 visible ASCII characters' }],
        },
      });
    }
    const q = req.originalUrl.indexOf('?');
    const path = q < 0 ? req.originalUrl : req.originalUrl.slice(0, q);
    const request: IdempotencyRequest = {
      scope: scopeOf(res),
      key,
      fingerprint: createHash('sha256')
        .update(`${req.method}\n${path}\n${canonicalJson(req.body)}`)
        .digest('hex'),
    };
    const send = res.send.bind(res);
    let settled = false;
    // What the handler answered, sent once its unit of work has ended.
    let answer: unknown;
    const outcome = await writes.execute(
      request,
      () =>
        new Promise<StoredResponse>((resolve, reject) => {
          res.send = ((body?: unknown) => {
            if (settled) return send(body);
            settled = true;
            answer = body;
            const status = res.statusCode;
            const text = typeof body === 'string' ? body : Buffer.isBuffer(body) ? body.toString('utf8') : JSON.stringify(body);
            const headers: Record<string, string> = {};
            for (const name of REPLAYED_HEADERS) {
              const value = res.getHeader(name);
              if (value !== undefined) headers[name] = String(value);
            }
            const stored = status >= 200 && status < 300 ? withoutSecrets(text, options.secretFields ?? []) : text;
            // A secret that cannot be taken out of the answer is never stored: the request fails whole.
            if (stored === null) reject(new Error('an answer with secret fields is not a JSON object'));
            else resolve({ status, contentType: String(res.getHeader('content-type') ?? 'application/json'), body: stored, headers });
            return res;
          }) as Response['send'];
          res.on('close', () => {
            // The handler never answered (client gone, crash of the handler): roll back, free the key.
            if (!settled) {
              settled = true;
              reject(new Error('the request ended without an answer'));
            }
          });
          // The handler runs inside the unit of work: its writes commit with the stored answer.
          next();
        }),
    );
    if (outcome.replayed) {
      const { response } = outcome;
      settled = true;
      res.setHeader('Idempotent-Replayed', 'true');
      for (const [name, value] of Object.entries(response.headers ?? {})) res.setHeader(name, value);
      res.status(response.status).type(response.contentType).send(response.body);
      return;
    }
    send(answer);
  };

/** The answer as it may be stored: without the secret fields; null when they cannot be taken out. */
function withoutSecrets(text: string, secretFields: readonly string[]): string | null {
  if (secretFields.length === 0) return text;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return null;
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) return null;
  const kept: Record<string, unknown> = { ...(parsed as Record<string, unknown>) };
  for (const field of secretFields) delete kept[field];
  return JSON.stringify(kept);
}

/**
 * JSON with object keys sorted, so the same body in another key order is the same request.
 * Written with an explicit stack rather than recursion: whatever the nesting, it cannot overflow
 * the call stack (the body parser bounds nesting too).
 */
export function canonicalJson(value: unknown): string {
  let out = '';
  // Each item is either a value to write or a literal piece of text (a separator or a bracket).
  const work: Array<{ value: unknown } | string> = [{ value }];
  while (work.length > 0) {
    const item = work.pop()!;
    if (typeof item === 'string') {
      out += item;
      continue;
    }
    const v = item.value;
    if (Array.isArray(v)) {
      work.push(']');
      for (let i = v.length - 1; i >= 0; i -= 1) {
        work.push({ value: v[i] });
        if (i > 0) work.push(',');
      }
      out += '[';
    } else if (v !== null && typeof v === 'object') {
      const keys = Object.keys(v).sort();
      work.push('}');
      for (let i = keys.length - 1; i >= 0; i -= 1) {
        const k = keys[i]!;
        work.push({ value: (v as Record<string, unknown>)[k] });
        work.push(`${i > 0 ? ',' : ''}${JSON.stringify(k)}:`);
      }
      out += '{';
    } else {
      out += JSON.stringify(v ?? null);
    }
  }
  return out;
}
