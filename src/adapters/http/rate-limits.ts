import type { Request, RequestHandler, Response } from 'express';
import { ipKeyGenerator, rateLimit, type Store } from 'express-rate-limit';
import { sendProblem } from './problem.js';

/** The named limiters, each counting by one identity. */
export type LimiterName = 'public' | 'booking' | 'login' | 'token' | 'delegated' | 'payments';

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
}

/** What the limiters need: whether they are on, their rules and a store per limiter. */
export interface RateLimitSettings {
  readonly enabled: boolean;
  readonly rules: Readonly<Record<LimiterName, LimiterRule>>;
  /** A fresh store for one limiter (shared state across instances), or undefined for memory. */
  readonly store: (name: LimiterName) => Store | undefined;
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

/** Builds every named limiter once (express-rate-limit wants them created at start). */
export function createRateLimits(settings: RateLimitSettings): RateLimits {
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
      // A store that cannot be reached is a database fault: the error handler answers 503.
      passOnStoreError: false,
      // Our keys never use req.ip raw; trust-proxy checks are the deployment's business.
      validate: { trustProxy: false, xForwardedForHeader: false, ip: false, keyGeneratorIpFallback: false },
      handler: (_req, res, _next, options) => {
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
  };
}
