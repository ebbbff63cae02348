import { createHash } from 'node:crypto';
import type { Request, Response } from 'express';
import type { WalletPrincipal } from '../../domain/identity/principal.js';
import type { Clock } from '../../domain/shared/clock.port.js';
import { DomainError } from '../../domain/shared/errors.js';
import type { IdempotencyRequest, IdempotencyStore, UnitOfWork } from '../../domain/shared/idempotency.port.js';
import { idempotencyScope, isValidIdempotencyKey } from '../../domain/shared/idempotency.js';
import type { IdempotencyRule } from './operation.js';
import { agentOf } from './request-context.js';

/** What an idempotent operation needs besides the request. */
export interface IdempotencyDeps {
  readonly store: IdempotencyStore;
  readonly clock: Clock;
}

/** An answer ready to leave: its status, JSON text (null: none), content type and headers. */
export interface SerialisedAnswer {
  readonly status: number;
  readonly body: string | null;
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
    case 'wallet':
      // The keys of the tenant's backend (per client) or of one wallet user.
      return idempotencyScope(res.locals.wallet as WalletPrincipal);
  }
}

/**
 * Runs an operation that takes an `Idempotency-Key` (called once its credential and body are
 * checked). Without a key, `produce` runs and its answer is sent. With one, the first successful
 * (2xx) answer is stored and replayed for the same key, caller and request, with
 * `Idempotent-Replayed: true` and the same status, body, `Content-Type`, `Location` and
 * `Cache-Control`. The claim on the key is held while the request runs (a duplicate waits for
 * it, then replays) and ends with it: a failed request releases it so that a retry runs again,
 * and so does a crash of the instance. The stored answer is written before the answer leaves, so
 * a retry never runs a completed write again. `produce` is given the claim's unit of work for the
 * writes it makes, and sets the answer's headers on `res`; it returns the answer to send.
 */
export async function runIdempotent(
  deps: IdempotencyDeps,
  rule: IdempotencyRule,
  req: Request,
  res: Response,
  produce: (unitOfWork: UnitOfWork | null) => Promise<SerialisedAnswer>,
): Promise<void> {
  const key = idempotencyKeyOf(req);
  if (key === null) {
    send(res, await produce(null));
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
  const claim = await deps.store.claim(request, deps.clock.now());
  if (claim.state === 'replay') {
    const { response } = claim;
    res.setHeader('Idempotent-Replayed', 'true');
    for (const [name, value] of Object.entries(response.headers ?? {})) res.setHeader(name, value);
    res.status(response.status).type(response.contentType).send(response.body);
    return;
  }
  const { lease } = claim;
  let settled = false;
  res.on('close', () => {
    // The request ended before its answer (client gone): free the key.
    if (!settled) {
      settled = true;
      void lease.release().catch(() => undefined);
    }
  });
  let answer: SerialisedAnswer;
  try {
    answer = await produce(lease.unitOfWork ?? null);
  } catch (err) {
    if (!settled) {
      settled = true;
      await lease.release().catch(() => undefined);
    }
    throw err;
  }
  if (!settled) {
    settled = true;
    const { status } = answer;
    const text = answer.body ?? '';
    const headers: Record<string, string> = {};
    for (const name of REPLAYED_HEADERS) {
      const value = res.getHeader(name);
      if (value !== undefined) headers[name] = String(value);
    }
    const stored = status >= 200 && status < 300 ? withoutSecrets(text, rule.secretFields ?? []) : null;
    await (
      stored !== null
        ? lease.complete({ status, contentType: answer.contentType, body: stored, headers }, deps.clock.now())
        : lease.release()
    ).catch(() => undefined);
  }
  send(res, answer);
}

/** Sends a serialised answer (its headers are already set). */
export function send(res: Response, answer: SerialisedAnswer): void {
  res.status(answer.status);
  if (answer.body === null) res.end();
  else res.type(answer.contentType).send(answer.body);
}

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
