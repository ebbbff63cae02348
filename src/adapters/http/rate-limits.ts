import type { Request, RequestHandler, Response } from 'express';
import { ipKeyGenerator, MemoryStore, rateLimit, type Options, type Store } from 'express-rate-limit';
import { DomainError } from '../../domain/shared/errors.js';
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
  /** A fresh store for one limiter (shared state across instances), or undefined for memory. */
  readonly store: (name: StoreName) => Store | undefined;
  /** Told of every store failure (a request then passes unlimited). */
  readonly onStoreError?: (err: unknown) => void;
  /** Told of every refusal, by limiter. */
  readonly onRefused?: (name: StoreName) => void;
}

type KeyOf = (req: Request, res: Response) => string;

const ip = (req: Request): string => `ip:${ipKeyGenerator(req.ip ?? req.socket.remoteAddress ?? 'unknown')}`;

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
  booking: (req, res) => (res.locals.agent ? `key:${res.locals.agent.keyId}` : ip(req)),
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

/** Builds every named limiter once (express-rate-limit wants them created at start). */
export function createRateLimits(settings: RateLimitSettings): RateLimits {
  const storeError = settings.onStoreError ?? (() => undefined);
  const make = (name: LimiterName): RequestHandler => {
    if (!settings.enabled) return passThrough;
    const rule = settings.rules[name];
    const store = settings.store(name);
    return rateLimit({
      windowMs: rule.windowSeconds * 1000,
      limit: rule.limit,
      standardHeaders: 'draft-6',
      legacyHeaders: false,
      keyGenerator: KEYS[name],
      ...(store ? { store } : {}),
      // Fail open: an unreachable store lets the request through (see RateLimitSettings).
      passOnStoreError: true,
      logger: { error: storeError, warn: () => undefined },
      // Our keys never use req.ip raw; trust-proxy checks are the deployment's business.
      validate: { trustProxy: false, xForwardedForHeader: false, ip: false, keyGeneratorIpFallback: false },
      handler: (_req, res, _next, options) => {
        settings.onRefused?.(name);
        const retry = res.getHeader('Retry-After') ?? String(Math.ceil(options.windowMs / 1000));
        res.setHeader('Retry-After', String(retry));
        sendProblem(res, 429, 'rate-limited', `Too many requests. Retry after ${String(retry)} seconds.`);
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

function authFailureLimit(settings: RateLimitSettings, storeError: (err: unknown) => void): AuthFailureLimit {
  const rule = settings.authFailureRule ?? DEFAULT_AUTH_FAILURE_RULE;
  const windowMs = rule.windowSeconds * 1000;
  const store = settings.store('authFailures') ?? new MemoryStore();
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
    settings.onRefused?.('authFailures');
    const retry = Math.max(1, Math.ceil(((seen.resetTime?.getTime() ?? Date.now() + windowMs) - Date.now()) / 1000));
    throw new HttpProblem(
      429,
      'rate-limited',
      `Too many failed authentications from this address. Retry after ${retry} seconds.`,
      {},
      { 'Retry-After': String(retry) },
    );
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
