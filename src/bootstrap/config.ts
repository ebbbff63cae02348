import { isIP } from 'node:net';
import { z } from 'zod';
import { DEFAULT_ACQUIRE_TIMEOUT_MS, DEFAULT_POOL_MAX, type DatabaseTarget } from '../adapters/knex/database.js';
import { parseSecretKey } from '../adapters/crypto/secret-sealer.js';
import { DEFAULT_RETRY_SCHEDULE } from '../domain/webhooks/endpoint.js';
import { DEFAULT_SECURITY_EVENT_RETENTION_DAYS, DEFAULT_WEBHOOK_RETENTION_DAYS } from '../application/admin/purge-expired.js';
import { DEFAULT_KEY_EXPIRY_NOTICE_DAYS } from '../application/identity/send-key-expiry-notices.js';
import { DEFAULT_DNS_TIMEOUT_MS } from '../adapters/webhooks/url-guard.js';
import {
  DEFAULT_KEY_CACHE,
  DEFAULT_KEY_USAGE_FLUSH_MS,
  DEFAULT_MACHINE_TOKEN_TTL_SECONDS,
  DEFAULT_QUOTE_TTL_SECONDS,
  DEFAULT_TOKEN_ISSUER,
  DEFAULT_USER_TOKEN_TTL_SECONDS,
  defaultTokenAudience,
} from './defaults.js';

/** `PGLITE_DIR`: the embedded database's folder. */
export const DEFAULT_PGLITE_DIR = './data';

/** Where the service keeps its state. */
export type Persistence = { readonly kind: 'database'; readonly target: DatabaseTarget } | { readonly kind: 'memory' };

/** Everything the service reads from its environment, validated once at start. */
export interface Config {
  readonly port: number;
  readonly host: string;
  readonly persistence: Persistence;
  readonly logLevel: string;
  readonly quoteTtlSeconds: number;
  readonly walletBasePath: string;
  readonly issuer: string;
  readonly machineTokenTtlSeconds: number;
  readonly userTokenTtlSeconds: number;
  readonly rateLimits: boolean;
  readonly shutdownTimeoutSeconds: number;
  readonly keyCache: { readonly maxEntries: number; readonly ttlMs: number };
  /** How often each instance writes the keys' last use, in one batch (at most 60 s: the promised lag). */
  readonly keyUsageFlushMs: number;
  readonly dbPoolMax: number;
  /** The `aud` of wallet tokens. */
  readonly tokenAudience: string;
  /** A private JWK or JWK Set that signs wallet tokens; null: keys are generated and kept in the database. */
  readonly tokenSigningKey: string | null;
  /** How many reverse proxies in front of the service to trust for the client address (0: none). */
  readonly trustProxyHops: number;
  /** Grace period after SIGTERM during which readiness fails but connections are still taken. */
  readonly shutdownDrainDelayMs: number;
  /** Worker processes sharing the port (1: no cluster). */
  readonly clusterWorkers: number;
  /** Request-rate rules of each named limiter. */
  readonly rateLimitRules: RateLimitRules;
  /**
   * Bounds on slow clients: all headers within `headersMs`, the whole request within `requestMs`;
   * an idle keep-alive connection is closed after `keepAliveMs` (above a load balancer's idle
   * timeout, so the balancer never reuses a connection the service is closing).
   */
  readonly httpTimeouts: { readonly headersMs: number; readonly requestMs: number; readonly keepAliveMs: number };
  /** Where the request-rate limiters count (see `RateLimitStoreConfig`). */
  readonly rateLimitStore: RateLimitStoreConfig;
  /** Failed authentications (keys, bearer tokens, client credentials) allowed per client address. */
  readonly authFailureRule: RateLimitRule;
  /**
   * Where one-time identifiers (client assertions, subject tokens, DPoP proofs) are recorded:
   * Redis when `REDIS_URL` is set, else the database (ADR 0008).
   */
  readonly replayRedis: { readonly url: string; readonly prefix: string } | null;
  /** Prometheus metrics listener (null: no metrics), on its own port so the public cannot reach it. */
  readonly metrics: { readonly port: number; readonly host: string } | null;
  /** Webhook delivery. */
  readonly webhooks: WebhookSettings;
}

/** How webhooks are checked, sealed and delivered. */
export interface WebhookSettings {
  /** `WEBHOOK_RETRY_SCHEDULE`: seconds between attempts. */
  readonly retrySchedule: readonly number[];
  /** `WEBHOOK_ALLOW_INSECURE=on`: `http` URLs are accepted (local development, tests). */
  readonly allowInsecure: boolean;
  /** `WEBHOOK_ALLOW_PRIVATE=on`: loopback, private and other special-purpose addresses are accepted. */
  readonly allowPrivate: boolean;
  /**
   * `SECRETS_KEY` (or its former name `WEBHOOK_SECRET_KEY`; 32 bytes, hex or base64) that seals
   * endpoint secrets and the stored token signing keys; null: generated and kept in the embedded
   * folder (`secrets.key`), or in the database on PostgreSQL (refused when `NODE_ENV=production`).
   */
  readonly secretKey: Buffer | null;
  /** `WEBHOOK_POLL_MS`: how often each instance looks for due deliveries. */
  readonly pollMs: number;
  /** `WEBHOOK_WORKER=off` stops this instance from sending (another instance sends). */
  readonly worker: boolean;
  /** `WEBHOOK_CONCURRENCY`: attempts in flight per instance. */
  readonly concurrency: number;
  /** `WEBHOOK_DNS_TIMEOUT_MS`: a URL check's lookup ends after this. */
  readonly dnsTimeoutMs: number;
  /** `WEBHOOK_DNS_SERVERS`: the name servers webhook hosts are resolved with; null: the system's (/etc/resolv.conf). */
  readonly dnsServers: readonly string[] | null;
  /** `WEBHOOK_RETENTION_DAYS`: delivered and failed deliveries are purged this long after their last attempt. */
  readonly retentionDays: number;
  /** `SECURITY_EVENT_RETENTION_DAYS`: security events are purged this long after they occurred. */
  readonly securityEventRetentionDays: number;
  /** `KEY_EXPIRY_NOTICE_DAYS`: `api_key.expiring` is sent this long before a key's expiry. */
  readonly keyExpiryNoticeDays: number;
}

/**
 * Where the limiters count: `redis` (shared by every instance; `REDIS_URL`), `memory` (this
 * process only: right for one process alone, the embedded default) or `postgres` (shared through
 * the database: correct but one row upsert per limited request).
 */
export type RateLimitStoreConfig =
  { readonly kind: 'redis'; readonly url: string; readonly prefix: string } | { readonly kind: 'memory' } | { readonly kind: 'postgres' };

/** One limiter's rule: at most `limit` requests per `windowSeconds`. */
export interface RateLimitRule {
  readonly limit: number;
  readonly windowSeconds: number;
}

/** The named request-rate limiters and what each counts by. */
export interface RateLimitRules {
  /** Public autocomplete, per IP. */
  readonly public: RateLimitRule;
  /** Booking surface behind the key, per API key. */
  readonly booking: RateLimitRule;
  /** `/auth/login`, per IP. */
  readonly login: RateLimitRule;
  /** `/oauth/token`, per client. */
  readonly token: RateLimitRule;
  /** `/auth/delegated-token`, per client. */
  readonly delegated: RateLimitRule;
  /** Payments, per wallet user. */
  readonly payments: RateLimitRule;
}

/** Defaults of the request-rate rules; each is overridden by `RATE_LIMIT_<NAME>=<limit>/<seconds>`. */
export const DEFAULT_RATE_LIMIT_RULES: RateLimitRules = {
  public: { limit: 300, windowSeconds: 60 },
  booking: { limit: 1200, windowSeconds: 60 },
  login: { limit: 20, windowSeconds: 60 },
  token: { limit: 120, windowSeconds: 60 },
  delegated: { limit: 600, windowSeconds: 60 },
  payments: { limit: 120, windowSeconds: 60 },
};

/**
 * Failed authentications per client address (`RATE_LIMIT_AUTH_FAILURES`): two a second for a
 * minute. A cron job left with a revoked key fails a few times a minute; a client probing keys
 * costs the database at most this many lookups a minute.
 */
export const DEFAULT_AUTH_FAILURE_RULE: RateLimitRule = { limit: 120, windowSeconds: 60 };

const rule = (fallback: RateLimitRule) =>
  z
    .string()
    .regex(/^\d{1,9}\/\d{1,6}$/, 'must be <limit>/<window seconds>, e.g. 100/60')
    .transform((v): RateLimitRule => {
      const [limit, windowSeconds] = v.split('/').map(Number) as [number, number];
      return { limit, windowSeconds };
    })
    .refine((r) => r.limit >= 1 && r.windowSeconds >= 1, 'limit and window must be at least 1')
    .optional()
    .transform((r) => r ?? fallback);

/** `1.2.3.4`, `1.2.3.4:53`, `::1` or `[::1]:53`: what `Resolver.setServers` takes. */
function isNameServer(s: string): boolean {
  const m = /^\[([0-9A-Fa-f:.]+)\](?::(\d{1,5}))?$/.exec(s) ?? /^([0-9.]+)(?::(\d{1,5}))?$/.exec(s) ?? /^([0-9A-Fa-f:.]+)()$/.exec(s);
  if (m === null || isIP(m[1]!) === 0) return false;
  return m[2] === undefined || m[2] === '' || (Number(m[2]) >= 1 && Number(m[2]) <= 65_535);
}

/** A 32-byte key given as 64 hex digits or base64; null when unset. */
const secretsKey = (name: string) =>
  z
    .string()
    .optional()
    .transform((v, ctx) => {
      if (v === undefined || v === '') return null;
      const key = parseSecretKey(v);
      if (key === null) ctx.addIssue({ code: 'custom', message: `${name} must be 32 bytes as 64 hex digits or base64` });
      return key;
    });

const int = (min: number, max: number, fallback: number) => z.coerce.number().int().min(min).max(max).default(fallback);

const schema = z.object({
  PORT: int(0, 65_535, 3000),
  // Loopback by default: the embedded demo is for this machine only. A deployment behind a load
  // balancer or in a container sets HOST=0.0.0.0 (or the interface's address).
  HOST: z.string().min(1).default('127.0.0.1'),
  DATABASE_URL: z.string().url().optional(),
  PERSISTENCE: z.enum(['postgres', 'pglite', 'memory']).optional(),
  PGLITE_DIR: z.string().min(1).default(DEFAULT_PGLITE_DIR),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  QUOTE_TTL_SECONDS: int(10, 86_400, DEFAULT_QUOTE_TTL_SECONDS),
  WALLET_BASE_PATH: z
    .string()
    .regex(/^(\/[A-Za-z0-9._-]+)*$/, 'WALLET_BASE_PATH must be empty or like /wallet')
    .default(''),
  TOKEN_ISSUER: z.string().min(1).default(DEFAULT_TOKEN_ISSUER),
  MACHINE_TOKEN_TTL_SECONDS: int(60, 86_400, DEFAULT_MACHINE_TOKEN_TTL_SECONDS),
  USER_TOKEN_TTL_SECONDS: int(60, 86_400, DEFAULT_USER_TOKEN_TTL_SECONDS),
  RATE_LIMITS: z.enum(['on', 'off']).default('on'),
  SHUTDOWN_TIMEOUT_SECONDS: int(1, 600, 25),
  KEY_CACHE_MAX_ENTRIES: int(0, 1_000_000, DEFAULT_KEY_CACHE.maxEntries),
  KEY_CACHE_TTL_SECONDS: int(0, 3600, DEFAULT_KEY_CACHE.ttlMs / 1000),
  KEY_USAGE_FLUSH_SECONDS: int(1, 60, DEFAULT_KEY_USAGE_FLUSH_MS / 1000),
  DB_POOL_MAX: int(1, 200, DEFAULT_POOL_MAX),
  TOKEN_AUDIENCE: z.string().min(1).optional(),
  TOKEN_SIGNING_KEY: z
    .string()
    .refine((v) => {
      try {
        const parsed = JSON.parse(v) as unknown;
        return typeof parsed === 'object' && parsed !== null;
      } catch {
        return false;
      }
    }, 'TOKEN_SIGNING_KEY must be a private JWK or a JWK Set (JSON)')
    .optional(),
  TRUST_PROXY: int(0, 10, 0),
  DB_ACQUIRE_TIMEOUT_MS: int(100, 60_000, DEFAULT_ACQUIRE_TIMEOUT_MS),
  SHUTDOWN_DRAIN_DELAY_MS: int(0, 60_000, 0),
  CLUSTER_WORKERS: int(1, 64, 1),
  HTTP_HEADERS_TIMEOUT_MS: int(100, 120_000, 10_000),
  HTTP_REQUEST_TIMEOUT_MS: int(100, 600_000, 30_000),
  HTTP_KEEP_ALIVE_TIMEOUT_MS: int(1_000, 600_000, 65_000),
  REDIS_URL: z.preprocess(
    (v) => (v === '' ? undefined : v),
    z
      .string()
      .regex(/^rediss?:\/\/\S+$/, 'REDIS_URL must be redis://host:port[/db] or rediss://…')
      .optional(),
  ),
  REDIS_KEY_PREFIX: z
    .string()
    .regex(/^[A-Za-z0-9:._-]{1,64}$/, 'REDIS_KEY_PREFIX: 1-64 of A-Z a-z 0-9 : . _ -')
    .default('pbw:rl:'),
  RATE_LIMIT_STORE: z.enum(['redis', 'memory', 'postgres']).optional(),
  SERVICE_INSTANCES: int(1, 1000, 1),
  RATE_LIMIT_AUTH_FAILURES: rule(DEFAULT_AUTH_FAILURE_RULE),
  METRICS_PORT: z.preprocess((v) => (v === '' ? undefined : v), z.coerce.number().int().min(0).max(65_535).optional()),
  METRICS_HOST: z.string().min(1).default('127.0.0.1'),
  RATE_LIMIT_PUBLIC: rule(DEFAULT_RATE_LIMIT_RULES.public),
  RATE_LIMIT_BOOKING: rule(DEFAULT_RATE_LIMIT_RULES.booking),
  RATE_LIMIT_LOGIN: rule(DEFAULT_RATE_LIMIT_RULES.login),
  RATE_LIMIT_TOKEN: rule(DEFAULT_RATE_LIMIT_RULES.token),
  RATE_LIMIT_DELEGATED: rule(DEFAULT_RATE_LIMIT_RULES.delegated),
  RATE_LIMIT_PAYMENTS: rule(DEFAULT_RATE_LIMIT_RULES.payments),
  WEBHOOK_RETRY_SCHEDULE: z
    .string()
    .regex(/^\d{1,6}(,\d{1,6}){0,19}$/, 'must be 1-20 comma-separated whole seconds, e.g. 5,300,1800')
    .default(DEFAULT_RETRY_SCHEDULE.join(','))
    .transform((v) => v.split(',').map(Number)),
  WEBHOOK_ALLOW_INSECURE: z.enum(['on', 'off']).default('off'),
  WEBHOOK_ALLOW_PRIVATE: z.enum(['on', 'off']).default('off'),
  SECRETS_KEY: secretsKey('SECRETS_KEY'),
  // The former name of SECRETS_KEY, from when it sealed webhook secrets only.
  WEBHOOK_SECRET_KEY: secretsKey('WEBHOOK_SECRET_KEY'),
  WEBHOOK_POLL_MS: int(50, 60_000_000, 1000),
  WEBHOOK_WORKER: z.enum(['on', 'off']).default('on'),
  WEBHOOK_CONCURRENCY: int(1, 256, 16),
  // Below the attempt's 10 s, which the lookup counts in.
  WEBHOOK_DNS_TIMEOUT_MS: int(100, 9_000, DEFAULT_DNS_TIMEOUT_MS),
  WEBHOOK_DNS_SERVERS: z
    .string()
    .optional()
    .transform((v, ctx) => {
      if (v === undefined || v.trim() === '') return null;
      const servers = v.split(',').map((s) => s.trim());
      for (const s of servers) {
        if (!isNameServer(s))
          ctx.addIssue({ code: 'custom', message: `WEBHOOK_DNS_SERVERS: "${s}" is not an IP address (ip, ip:port or [ipv6]:port)` });
      }
      return servers;
    }),
  WEBHOOK_RETENTION_DAYS: int(1, 3650, DEFAULT_WEBHOOK_RETENTION_DAYS),
  SECURITY_EVENT_RETENTION_DAYS: int(1, 3650, DEFAULT_SECURITY_EVENT_RETENTION_DAYS),
  KEY_EXPIRY_NOTICE_DAYS: int(1, 365, DEFAULT_KEY_EXPIRY_NOTICE_DAYS),
  NODE_ENV: z.string().optional(),
});

/** Reads and validates the configuration; throws with every problem listed. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const parsed = schema.safeParse(env);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ');
    throw new Error(`Invalid configuration: ${problems}`);
  }
  const e = parsed.data;
  if (e.SECRETS_KEY !== null && e.WEBHOOK_SECRET_KEY !== null && !e.SECRETS_KEY.equals(e.WEBHOOK_SECRET_KEY)) {
    throw new Error(
      'Invalid configuration: SECRETS_KEY and WEBHOOK_SECRET_KEY (its former name) are both set and differ; keep the one your secrets are sealed with',
    );
  }
  const secretKey = e.SECRETS_KEY ?? e.WEBHOOK_SECRET_KEY;
  if (secretKey === null && e.NODE_ENV === 'production') {
    throw new Error(
      'Invalid configuration: SECRETS_KEY is required when NODE_ENV=production: it seals the token signing keys and webhook secrets ' +
        'the database and its backups hold (32 bytes, e.g. `openssl rand -base64 32`; kept apart from the backups)',
    );
  }
  const kind = e.PERSISTENCE ?? (e.DATABASE_URL ? 'postgres' : 'pglite');
  let persistence: Persistence;
  if (kind === 'memory') persistence = { kind: 'memory' };
  else if (kind === 'postgres') {
    if (!e.DATABASE_URL) throw new Error('Invalid configuration: PERSISTENCE=postgres needs DATABASE_URL');
    persistence = {
      kind: 'database',
      target: { kind: 'postgres', url: e.DATABASE_URL, poolMax: e.DB_POOL_MAX, acquireTimeoutMs: e.DB_ACQUIRE_TIMEOUT_MS },
    };
  } else persistence = { kind: 'database', target: { kind: 'pglite', dataDir: e.PGLITE_DIR } };
  const rateLimitStore = chooseRateLimitStore(e.RATE_LIMIT_STORE, e.REDIS_URL, e.REDIS_KEY_PREFIX, persistence);
  // Several processes counting each on their own would each grant the whole budget.
  const processes =
    e.CLUSTER_WORKERS > 1
      ? `CLUSTER_WORKERS=${e.CLUSTER_WORKERS}`
      : e.SERVICE_INSTANCES > 1
        ? `SERVICE_INSTANCES=${e.SERVICE_INSTANCES}`
        : null;
  if (e.RATE_LIMITS === 'on' && rateLimitStore.kind === 'memory' && processes !== null) {
    throw new Error(
      `Invalid configuration: ${processes} runs several processes, but rate limits are counted in process memory, ` +
        'so each would grant the whole budget. Set REDIS_URL (a store every instance shares), or RATE_LIMIT_STORE=postgres, or RATE_LIMITS=off.',
    );
  }
  return {
    port: e.PORT,
    host: e.HOST,
    persistence,
    logLevel: e.LOG_LEVEL,
    quoteTtlSeconds: e.QUOTE_TTL_SECONDS,
    walletBasePath: e.WALLET_BASE_PATH,
    issuer: e.TOKEN_ISSUER,
    machineTokenTtlSeconds: e.MACHINE_TOKEN_TTL_SECONDS,
    userTokenTtlSeconds: e.USER_TOKEN_TTL_SECONDS,
    rateLimits: e.RATE_LIMITS === 'on',
    shutdownTimeoutSeconds: e.SHUTDOWN_TIMEOUT_SECONDS,
    keyCache: { maxEntries: e.KEY_CACHE_MAX_ENTRIES, ttlMs: e.KEY_CACHE_TTL_SECONDS * 1000 },
    keyUsageFlushMs: e.KEY_USAGE_FLUSH_SECONDS * 1000,
    dbPoolMax: e.DB_POOL_MAX,
    tokenAudience: e.TOKEN_AUDIENCE ?? defaultTokenAudience(e.TOKEN_ISSUER),
    tokenSigningKey: e.TOKEN_SIGNING_KEY ?? null,
    trustProxyHops: e.TRUST_PROXY,
    shutdownDrainDelayMs: e.SHUTDOWN_DRAIN_DELAY_MS,
    clusterWorkers: e.CLUSTER_WORKERS,
    rateLimitRules: {
      public: e.RATE_LIMIT_PUBLIC,
      booking: e.RATE_LIMIT_BOOKING,
      login: e.RATE_LIMIT_LOGIN,
      token: e.RATE_LIMIT_TOKEN,
      delegated: e.RATE_LIMIT_DELEGATED,
      payments: e.RATE_LIMIT_PAYMENTS,
    },
    httpTimeouts: {
      headersMs: e.HTTP_HEADERS_TIMEOUT_MS,
      requestMs: Math.max(e.HTTP_REQUEST_TIMEOUT_MS, e.HTTP_HEADERS_TIMEOUT_MS),
      keepAliveMs: e.HTTP_KEEP_ALIVE_TIMEOUT_MS,
    },
    rateLimitStore,
    authFailureRule: e.RATE_LIMIT_AUTH_FAILURES,
    // Every key the service writes to Redis lies under REDIS_KEY_PREFIX: rate limits `<prefix><limit>:`, one-time ids `<prefix>once:`.
    replayRedis: e.REDIS_URL === undefined ? null : { url: e.REDIS_URL, prefix: `${e.REDIS_KEY_PREFIX}once:` },
    metrics: e.METRICS_PORT === undefined ? null : { port: e.METRICS_PORT, host: e.METRICS_HOST },
    webhooks: {
      retrySchedule: e.WEBHOOK_RETRY_SCHEDULE,
      allowInsecure: e.WEBHOOK_ALLOW_INSECURE === 'on',
      allowPrivate: e.WEBHOOK_ALLOW_PRIVATE === 'on',
      secretKey,
      pollMs: e.WEBHOOK_POLL_MS,
      worker: e.WEBHOOK_WORKER === 'on',
      concurrency: e.WEBHOOK_CONCURRENCY,
      dnsTimeoutMs: e.WEBHOOK_DNS_TIMEOUT_MS,
      dnsServers: e.WEBHOOK_DNS_SERVERS,
      retentionDays: e.WEBHOOK_RETENTION_DAYS,
      securityEventRetentionDays: e.SECURITY_EVENT_RETENTION_DAYS,
      keyExpiryNoticeDays: e.KEY_EXPIRY_NOTICE_DAYS,
    },
  };
}

function chooseRateLimitStore(
  chosen: 'redis' | 'memory' | 'postgres' | undefined,
  redisUrl: string | undefined,
  prefix: string,
  persistence: Persistence,
): RateLimitStoreConfig {
  const kind = chosen ?? (redisUrl !== undefined ? 'redis' : 'memory');
  if (kind === 'redis') {
    if (redisUrl === undefined) throw new Error('Invalid configuration: RATE_LIMIT_STORE=redis needs REDIS_URL');
    return { kind, url: redisUrl, prefix };
  }
  if (kind === 'postgres' && persistence.kind === 'memory') {
    throw new Error('Invalid configuration: RATE_LIMIT_STORE=postgres needs a database (not PERSISTENCE=memory)');
  }
  return { kind };
}
