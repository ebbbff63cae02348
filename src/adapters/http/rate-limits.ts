import type { Request, RequestHandler, Response } from 'express';
import { rateLimit, type Options, type Store } from 'express-rate-limit';
import { DomainError } from '../../domain/shared/errors.js';
import { clientAddress } from './client-address.js';
import { HttpProblem, sendProblem } from './problem.js';

/** The named limiters, each counting by one identity. */
export type LimiterName = 'public' | 'booking' | 'login' | 'token' | 'delegated' | 'payments';

/** A store name: each limiter's, and the failed-authentication count's. */
export type StoreName = LimiterName | 'authFailures';

/** A limiter's rule: at most `limit` requests per `windowSeconds`. */
export interface LimiterRule {
  readonly limit: number;
  readonly windowSeconds: number;
}

/**
 * Request-rate limiters to mount on routes. Each answers 429 `rate-limited` problem+json with
 * `Retry-After` and `RateLimit-Limit` / `RateLimit-Remaining` / `RateLimit-Reset` (IETF draft 6);
 * every allowed response carries the `RateLimit-*` headers too. When rate limits are off each is
 * a pass-through.
 */
export interface RateLimits {
  /** Public booking routes (autocomplete), per client IP. Mount before the handler. */
  readonly public: RequestHandler;
  /** Booking routes behind the key, per API key id. Mount after the API-key middleware. */
  readonly booking: RequestHandler;
  /** `POST /auth/login`, per client IP. Mount before the handler (independent of the lockout). */
  readonly login: RequestHandler;
  /**
   * `POST /oauth/token`, per client: `res.locals.oauthClientId` when the route set it after
   * checking the secret, else the client id the request claims (Basic user or form
   * `client_id`), else the IP. Mount after the form body parser.
   */
  readonly token: RequestHandler;
  /** `POST /auth/delegated-token`, per client (`res.locals.wallet.clientId`). Mount after the bearer middleware. */
  readonly delegated: RequestHandler;
  /** Payments, per wallet user (`res.locals.wallet.userId`). Mount after the bearer middleware. */
  readonly payments: RequestHandler;
  /** Failed authentications per client address; see `AuthFailureLimit`. */
  readonly authFailures: AuthFailureLimit;
}

/**
 * Failed authentication (booking keys, bearer tokens, client credentials), counted per client
 * address: once an address has failed `limit` times in a window, every authenticated request from
 * it answers 429 `rate-limited` with `Retry-After` before its credentials are looked up, so a
 * client guessing keys cannot keep the database busy. A pass-through when rate limits are off.
 */
export interface AuthFailureLimit {
  /** Throws 429 when the request's address is past its limit. Call before looking anything up. */
  check(req: Request): Promise<void>;
  /** Runs `authenticate`; when it fails authentication, counts the failure, then rethrows. */
  guard<T>(req: Request, authenticate: () => Promise<T>): Promise<T>;
  /** Counts one failed authentication of the request's address. */
  record(req: Request): Promise<void>;
}

/**
 * What the limiters need: whether they are on, their rules and a store per limiter. A store that
 * cannot be reached lets requests through (fail open): the limits protect capacity, while money,
 * stock and the password lockout are guarded by the database, which stays in force.
 */
export interface RateLimitSettings {
  readonly enabled: boolean;
  readonly rules: Readonly<Record<LimiterName, LimiterRule>>;
  /** Failed authentications allowed per address and window. */
  readonly authFailureRule?: LimiterRule;
  /**
   * A fresh store for one limiter (shared state across instances), or undefined to count in this
   * process's memory (`WindowCounter`).
   */
  readonly store: (name: StoreName) => Store | undefined;
  /**
   * A count shared by every instance that answers from a local view (`SharedCounter`), used
   * instead of `store` for a limiter when given; undefined to use `store`.
   */
  readonly counter?: (name: LimiterName, rule: LimiterRule) => SharedCounter | undefined;
  /** The failed authentications shared by every instance, used instead of `store` when given. */
  readonly failureCount?: (rule: LimiterRule) => FailureCount | undefined;
  /** Told of every store failure (a request then passes unlimited). */
  readonly onStoreError?: (err: unknown) => void;
  /** Told of every refusal, by limiter. */
  readonly onRefused?: (name: StoreName) => void;
}

/** A limiter's answer for one request: admitted or not, its place in the window, the window's end. */
export interface Verdict {
  readonly allowed: boolean;
  readonly hits: number;
  readonly resetAt: number;
}

/**
 * A fixed-window count shared by several instances. `hit` counts one request of `key` and answers
 * at once when it can, else once the shared store has counted it; undefined when the store could
 * not be reached (the request then passes unlimited, without `RateLimit-*` headers).
 */
export interface SharedCounter {
  hit(key: string, now: number): Verdict | Promise<Verdict | undefined>;
}

/** Failed authentications per address, shared by several instances. */
export interface FailureCount {
  /** The address's failures in its open window, if any; at once when known, else from the store. */
  seen(key: string, now: number): { hits: number; resetAt: number } | undefined | Promise<{ hits: number; resetAt: number } | undefined>;
  /** Counts one failure. */
  add(key: string): Promise<void>;
}

type KeyOf = (req: Request, res: Response) => string;

/** The key of a limit counted per client address (`clientAddress`: IPv6 by its /56). */
const ip = (req: Request): string => `ip:${clientAddress(req)}`;

/** The client id of HTTP Basic credentials; the secret is never read into the key. */
const basicClientId = (req: Request): string | null => {
  const header = req.headers.authorization;
  if (typeof header !== 'string' || !/^Basic /i.test(header)) return null;
  const decoded = Buffer.from(header.slice(6).trim(), 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon <= 0) return null;
  try {
    return decodeURIComponent(decoded.slice(0, colon).replace(/\+/g, ' ')).slice(0, 200);
  } catch {
    return null;
  }
};

const KEYS: Readonly<Record<LimiterName, KeyOf>> = {
  public: ip,
  login: ip,
  booking: (req, res) =>
    res.locals.agent ? `key:${res.locals.agent.keyId}` : res.locals.operator ? `operator:${res.locals.operator.code}` : ip(req),
  token: (req, res) => {
    const verified = (res.locals as { oauthClientId?: unknown }).oauthClientId;
    if (typeof verified === 'string') return `client:${verified}`;
    const claimed = basicClientId(req) ?? (typeof req.body?.client_id === 'string' ? String(req.body.client_id).slice(0, 200) : null);
    // Client ids are not secret: count a claimed one per address, so nobody else can spend its budget.
    return claimed === null ? ip(req) : `client:${claimed}|${ip(req)}`;
  },
  delegated: (req, res) => (res.locals.wallet ? `client:${res.locals.wallet.clientId}` : ip(req)),
  payments: (req, res) => {
    const w = res.locals.wallet;
    return w?.kind === 'user' ? `user:${w.tenantId}:${w.userId}` : ip(req);
  },
};

const passThrough: RequestHandler = (_req, _res, next) => next();

/** Failed authentication by default: two a second for a minute, per address. */
const DEFAULT_AUTH_FAILURE_RULE: LimiterRule = { limit: 120, windowSeconds: 60 };

const noAuthFailureLimit: AuthFailureLimit = {
  check: async () => undefined,
  guard: (_req, authenticate) => authenticate(),
  record: async () => undefined,
};

/** Is this error a refused credential (as opposed to a fault, or a valid one used on the wrong route)? */
const isAuthenticationFailure = (err: unknown): boolean => err instanceof DomainError && err.kind === 'unauthenticated';

/**
 * Fixed windows counted in this process's memory, as express-rate-limit's MemoryStore counts
 * them (a key's window opens with its first request and lasts `windowMs`), but synchronously:
 * no promise, no store call, a map lookup per request. Windows are kept in two generations that
 * rotate every `windowMs`, so a key unseen for two rotations is forgotten without a timer (its
 * window had ended: see `find`).
 */
export class WindowCounter {
  private current = new Map<string, CountWindow>();
  private previous = new Map<string, CountWindow>();
  private rotateAt: number;

  constructor(private readonly windowMs: number) {
    this.rotateAt = Date.now() + windowMs;
  }

  /** Counts one request of `key`; the window it counted in. */
  increment(key: string, now: number): CountWindow {
    let w = this.find(key, now);
    if (w === undefined || w.resetAt <= now) {
      w = { hits: 0, resetAt: now + this.windowMs };
      this.current.set(key, w);
    }
    w.hits += 1;
    return w;
  }

  /** The window `key` is counting in, if one is open. */
  get(key: string, now: number): CountWindow | undefined {
    const w = this.find(key, now);
    return w !== undefined && w.resetAt > now ? w : undefined;
  }

  /**
   * A window found in the older generation moves to the current one. A window is dropped only
   * after two rotations without a request, at least `windowMs` after its last request, so it had
   * ended.
   */
  private find(key: string, now: number): CountWindow | undefined {
    if (now >= this.rotateAt) {
      this.previous = this.current;
      this.current = new Map();
      this.rotateAt = now + this.windowMs;
    }
    let w = this.current.get(key);
    if (w === undefined) {
      w = this.previous.get(key);
      if (w !== undefined) {
        this.previous.delete(key);
        this.current.set(key, w);
      }
    }
    return w;
  }
}

/** One key's window: requests counted in it, and when it ends (epoch ms). */
export interface CountWindow {
  hits: number;
  resetAt: number;
}

/** Answers 429 rate-limited with `Retry-After` (the seconds until the window ends). */
const refuse = (res: Response, retryAfter: string): void => {
  res.setHeader('Retry-After', retryAfter);
  sendProblem(res, 429, 'rate-limited', `Too many requests. Retry after ${retryAfter} seconds.`);
};

/**
 * A limiter counting in this process: the same answers as express-rate-limit with
 * `standardHeaders: 'draft-6'` (`RateLimit-Policy`, `RateLimit-Limit`, `RateLimit-Remaining`,
 * `RateLimit-Reset` on every answer; `Retry-After` and the 429 problem when over) for about a
 * tenth of its CPU: no promise chain, the fixed header values built once.
 */
function memoryLimiter(name: LimiterName, rule: LimiterRule, keyOf: KeyOf, onRefused?: (name: StoreName) => void): RequestHandler {
  const counter = new WindowCounter(rule.windowSeconds * 1000);
  return countingLimiter(
    name,
    rule,
    keyOf,
    (key, now) => {
      const w = counter.increment(key, now);
      return { allowed: w.hits <= rule.limit, hits: w.hits, resetAt: w.resetAt };
    },
    onRefused,
  );
}

/**
 * A limiter answering from `count`: synchronously when it answers at once, else when its promise
 * settles. The answers of `memoryLimiter`; a count that could not be made (undefined, or a failed
 * promise, reported to `onStoreError`) lets the request through without `RateLimit-*` headers,
 * as express-rate-limit's `passOnStoreError` does.
 */
function countingLimiter(
  name: LimiterName,
  rule: LimiterRule,
  keyOf: KeyOf,
  count: (key: string, now: number) => Verdict | Promise<Verdict | undefined>,
  onRefused?: (name: StoreName) => void,
  onStoreError?: (err: unknown) => void,
): RequestHandler {
  const policy = `${rule.limit};w=${Math.ceil(rule.windowSeconds)}`;
  const limit = String(rule.limit);
  const answer = (res: Response, next: (err?: unknown) => void, v: Verdict, now: number): void => {
    const reset = String(Math.max(0, Math.ceil((v.resetAt - now) / 1000)));
    if (!res.headersSent) {
      res.setHeader('RateLimit-Policy', policy);
      res.setHeader('RateLimit-Limit', limit);
      res.setHeader('RateLimit-Remaining', String(Math.max(rule.limit - v.hits, 0)));
      res.setHeader('RateLimit-Reset', reset);
    }
    if (!v.allowed) {
      onRefused?.(name);
      refuse(res, reset);
      return;
    }
    next();
  };
  return (req, res, next) => {
    const now = Date.now();
    const v = count(keyOf(req, res), now);
    if (!(v instanceof Promise)) {
      answer(res, next, v, now);
      return;
    }
    v.then(
      (verdict) => (verdict === undefined ? next() : answer(res, next, verdict, Date.now())),
      (err: unknown) => {
        onStoreError?.(err);
        next();
      },
    );
  };
}

/** Builds every named limiter once (express-rate-limit wants them created at start). */
export function createRateLimits(settings: RateLimitSettings): RateLimits {
  const storeError = settings.onStoreError ?? (() => undefined);
  const make = (name: LimiterName): RequestHandler => {
    if (!settings.enabled) return passThrough;
    const rule = settings.rules[name];
    const counter = settings.counter?.(name, rule);
    if (counter !== undefined)
      return countingLimiter(name, rule, KEYS[name], (key, now) => counter.hit(key, now), settings.onRefused, storeError);
    const store = settings.store(name);
    if (store === undefined) return memoryLimiter(name, rule, KEYS[name], settings.onRefused);
    return rateLimit({
      windowMs: rule.windowSeconds * 1000,
      limit: rule.limit,
      standardHeaders: 'draft-6',
      legacyHeaders: false,
      keyGenerator: KEYS[name],
      store,
      // Fail open: an unreachable store lets the request through (see RateLimitSettings).
      passOnStoreError: true,
      logger: { error: storeError, warn: () => undefined },
      // Our keys never use req.ip raw; trust-proxy checks are the deployment's business.
      validate: { trustProxy: false, xForwardedForHeader: false, ip: false, keyGeneratorIpFallback: false },
      handler: (_req, res, _next, options) => {
        settings.onRefused?.(name);
        refuse(res, String(res.getHeader('Retry-After') ?? Math.ceil(options.windowMs / 1000)));
      },
    });
  };
  return {
    public: make('public'),
    booking: make('booking'),
    login: make('login'),
    token: make('token'),
    delegated: make('delegated'),
    payments: make('payments'),
    authFailures: settings.enabled ? authFailureLimit(settings, storeError) : noAuthFailureLimit,
  };
}

/** Counts in the shared store when there is one, else in this process (synchronously). */
function authFailureLimit(settings: RateLimitSettings, storeError: (err: unknown) => void): AuthFailureLimit {
  const rule = settings.authFailureRule ?? DEFAULT_AUTH_FAILURE_RULE;
  const windowMs = rule.windowSeconds * 1000;
  const tooMany = (resetAt: number | undefined, now: number): HttpProblem => {
    settings.onRefused?.('authFailures');
    const retry = Math.max(1, Math.ceil(((resetAt ?? now + windowMs) - now) / 1000));
    return new HttpProblem(
      429,
      'rate-limited',
      `Too many failed authentications from this address. Retry after ${retry} seconds.`,
      {},
      { 'Retry-After': String(retry) },
    );
  };
  const shared = settings.failureCount?.(rule);
  if (shared !== undefined) return sharedAuthFailureLimit(shared, rule, tooMany, storeError);
  const store = settings.store('authFailures');
  if (store === undefined) {
    const counter = new WindowCounter(windowMs);
    const checkNow = (req: Request): void => {
      const now = Date.now();
      const seen = counter.get(ip(req), now);
      if (seen !== undefined && seen.hits >= rule.limit) throw tooMany(seen.resetAt, now);
    };
    const recordNow = (req: Request): void => {
      counter.increment(ip(req), Date.now());
    };
    return {
      check: async (req) => checkNow(req),
      record: async (req) => recordNow(req),
      // No async frame of its own: this runs on every authenticated request.
      guard: <T>(req: Request, authenticate: () => Promise<T>): Promise<T> => {
        let pending: Promise<T>;
        try {
          checkNow(req);
          pending = authenticate();
        } catch (err) {
          pending = Promise.reject(err as Error);
        }
        return pending.catch((err: unknown) => {
          if (isAuthenticationFailure(err)) recordNow(req);
          throw err;
        });
      },
    };
  }
  Promise.resolve(store.init?.({ windowMs } as Options)).catch(storeError);
  const check = async (req: Request): Promise<void> => {
    let seen;
    try {
      seen = await store.get?.(ip(req));
    } catch (err) {
      storeError(err);
      return;
    }
    if (seen === undefined || !(seen.totalHits >= rule.limit)) return;
    throw tooMany(seen.resetTime?.getTime(), Date.now());
  };
  const record = async (req: Request): Promise<void> => {
    try {
      await store.increment(ip(req));
    } catch (err) {
      storeError(err);
    }
  };
  return {
    check,
    record,
    guard: async (req, authenticate) => {
      await check(req);
      try {
        return await authenticate();
      } catch (err) {
        if (isAuthenticationFailure(err)) await record(req);
        throw err;
      }
    },
  };
}

/**
 * Failed authentications in a `FailureCount`: the check answers at once when the count knows the
 * address has no failure, so an authenticated request costs no await; failures are counted
 * before the answer. A count that fails lets the request through (reported), as the stores do.
 */
function sharedAuthFailureLimit(
  count: FailureCount,
  rule: LimiterRule,
  tooMany: (resetAt: number | undefined, now: number) => HttpProblem,
  storeError: (err: unknown) => void,
): AuthFailureLimit {
  const over = (seen: { hits: number; resetAt: number } | undefined, now: number): void => {
    if (seen !== undefined && seen.hits >= rule.limit) throw tooMany(seen.resetAt, now);
  };
  /** Undefined when answered at once (and not over), else the pending check. */
  const checkNow = (req: Request): Promise<void> | undefined => {
    const now = Date.now();
    let seen;
    try {
      seen = count.seen(ip(req), now);
    } catch (err) {
      storeError(err);
      return undefined;
    }
    if (!(seen instanceof Promise)) {
      over(seen, now);
      return undefined;
    }
    return seen.then(
      (s) => over(s, Date.now()),
      (err: unknown) => {
        // A refusal is thrown by `over` in the first callback, never seen here.
        storeError(err);
      },
    );
  };
  const record = async (req: Request): Promise<void> => {
    try {
      await count.add(ip(req));
    } catch (err) {
      storeError(err);
    }
  };
  return {
    check: async (req) => checkNow(req),
    record,
    guard: <T>(req: Request, authenticate: () => Promise<T>): Promise<T> => {
      let pending: Promise<T>;
      try {
        const checking = checkNow(req);
        pending = checking === undefined ? authenticate() : checking.then(authenticate);
      } catch (err) {
        pending = Promise.reject(err as Error);
      }
      return pending.catch(async (err: unknown) => {
        if (isAuthenticationFailure(err)) await record(req);
        throw err;
      });
    },
  };
}
