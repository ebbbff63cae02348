import { createHash } from 'node:crypto';
import type { Request, Response } from 'express';
import type { WalletPrincipal } from '../../domain/identity/principal.js';
import { DomainError } from '../../domain/shared/errors.js';
import type { IdempotentWrites } from '../../application/idempotent-writes.js';
import type { IdempotencyRequest } from '../../domain/shared/idempotency.port.js';
import { idempotencyScope, isValidIdempotencyKey } from '../../domain/shared/idempotency.js';
import type { IdempotencyRule } from './operation.js';
import { agentOf, operatorOf } from './request-context.js';

/** An answer ready to leave: its status, JSON text or a document's bytes (null: none), content type and headers. */
export interface SerialisedAnswer {
  readonly status: number;
  readonly body: string | Buffer | null;
  readonly contentType: string;
}

/** The response headers that describe the resource, stored and replayed with the body. */
const REPLAYED_HEADERS = ['location', 'cache-control'] as const;

/** The `Idempotency-Key` of the request, validated; null when none was sent. */
export function idempotencyKeyOf(req: Request): string | null {
  const key = req.headers['idempotency-key'];
  if (key === undefined) return null;
  if (typeof key !== 'string' || !isValidIdempotencyKey(key)) {
    throw new DomainError('invalid-request', {
      message: 'Idempotency-Key must be 1 to 255 visible ASCII characters.',
      details: {
        errors: [{ path: 'header.Idempotency-Key', message: 'must be 1 to 255 visible ASCII characters' }],
      },
    });
  }
  return key;
}

/** Whose keys a request's `Idempotency-Key` is among. */
function scopeOf(rule: IdempotencyRule, res: Response): string {
  switch (rule.scope) {
    case 'agent':
      // Booking writes: an agent's keys, whichever of its API keys sends them.
      return idempotencyScope(agentOf(res.locals));
    case 'calling-key': {
      // Writes that mint a key: another key of the same agent makes its own request.
      const agent = agentOf(res.locals);
      return idempotencyScope({ kind: 'agent-key', agentId: agent.agentId, keyId: agent.keyId });
    }
    case 'operator':
      // An operator's writes: its keys, whichever of its operator keys sends them.
      return `operator:${operatorOf(res.locals).code}`;
    case 'wallet':
      // The keys of the tenant's backend (per client) or of one wallet user.
      return idempotencyScope(res.locals.wallet as WalletPrincipal);
  }
}

/**
 * Runs an operation that takes an `Idempotency-Key` (called once its credential and body are
 * checked), through the core's one idempotency mechanism (`IdempotentWrites`). Without a key,
 * `produce` runs and its answer is sent. With one, the key is claimed, `produce` runs and its
 * successful (2xx) answer is stored, all in one unit of work: the writes the handler makes
 * commit with the claim and the stored answer, or none of them does. A duplicate waits for the
 * first request, then gets its answer with `Idempotent-Replayed: true` and the same status,
 * body, `Content-Type`, `Location` and `Cache-Control`. An answer leaves only after its commit:
 * a commit that fails answers as the failure does, never with the answer of a write that did not
 * happen. `secretFields` of the answer go to the caller and are never stored, so a replay
 * answers without them.
 */
export async function runIdempotent(
  writes: IdempotentWrites,
  rule: IdempotencyRule,
  req: Request,
  res: Response,
  produce: () => Promise<SerialisedAnswer>,
): Promise<void> {
  const key = idempotencyKeyOf(req);
  if (key === null) {
    send(res, await produce());
    return;
  }
  const q = req.originalUrl.indexOf('?');
  const path = q < 0 ? req.originalUrl : req.originalUrl.slice(0, q);
  const request: IdempotencyRequest = {
    scope: scopeOf(rule, res),
    key,
    fingerprint: createHash('sha256')
      .update(`${req.method}\n${path}\n${canonicalJson(req.body)}`)
      .digest('hex'),
  };
  let answer: SerialisedAnswer | null = null;
  let outcome: Awaited<ReturnType<IdempotentWrites['execute']>>;
  try {
    outcome = await writes.execute(
      request,
      async () => {
        answer = await produce();
        const headers: Record<string, string> = {};
        for (const name of REPLAYED_HEADERS) {
          const value = res.getHeader(name);
          if (value !== undefined) headers[name] = String(value);
        }
        if (Buffer.isBuffer(answer.body)) throw new Error('a document answer is never stored for an Idempotency-Key');
        const body = answer.body ?? '';
        const ok = answer.status >= 200 && answer.status < 300;
        return {
          status: answer.status,
          contentType: answer.contentType,
          body: ok ? withoutSecrets(body, rule.secretFields ?? []) : body,
          headers,
        };
      },
      { oneLedgerWrite: rule.oneLedgerWrite === true },
    );
  } catch (err) {
    // The answer's write did not commit: the headers that describe what it made go with it.
    for (const name of REPLAYED_HEADERS) res.removeHeader(name);
    throw err;
  }
  const { replayed, response } = outcome;
  if (!replayed && answer !== null) {
    send(res, answer);
    return;
  }
  res.setHeader('Idempotent-Replayed', 'true');
  for (const [name, value] of Object.entries(response.headers ?? {})) res.setHeader(name, value);
  res.status(response.status).type(response.contentType).send(response.body);
}

/** Sends a serialised answer (its headers are already set). */
export function send(res: Response, answer: SerialisedAnswer): void {
  res.status(answer.status);
  if (answer.body === null) res.end();
  else res.type(answer.contentType).send(answer.body);
}

/**
 * The answer as it may be stored: without the secret fields. An answer with secret fields is a
 * JSON object by construction; one that is not cannot be stored safely, and fails the request
 * (rolling its writes back) rather than keep a secret.
 */
function withoutSecrets(text: string, secretFields: readonly string[]): string {
  if (secretFields.length === 0) return text;
  const parsed: unknown = JSON.parse(text);
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw new Error('an answer with secret fields must be a JSON object');
  }
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
