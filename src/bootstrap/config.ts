import { z } from 'zod';
import type { DatabaseTarget } from '../adapters/knex/database.js';

/** Where the service keeps its state. */
export type Persistence =
  | { readonly kind: 'database'; readonly target: DatabaseTarget }
  | { readonly kind: 'memory' };

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
  readonly dbPoolMax: number;
  /** The `aud` of wallet tokens. */
  readonly tokenAudience: string;
  /** A private JWK or JWK Set that signs wallet tokens; null: keys are generated and kept in the database. */
  readonly tokenSigningKey: string | null;
  /** How many reverse proxies in front of the service to trust for the client address (0: none). */
  readonly trustProxyHops: number;
}

const int = (min: number, max: number, fallback: number) =>
  z.coerce.number().int().min(min).max(max).default(fallback);

const schema = z.object({
  PORT: int(0, 65_535, 3000),
  HOST: z.string().min(1).default('0.0.0.0'),
  DATABASE_URL: z.string().url().optional(),
  PERSISTENCE: z.enum(['postgres', 'pglite', 'memory']).optional(),
  PGLITE_DIR: z.string().min(1).default('./data'),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  QUOTE_TTL_SECONDS: int(10, 86_400, 900),
  WALLET_BASE_PATH: z
    .string()
    .regex(/^(\/[A-Za-z0-9._-]+)*$/, 'WALLET_BASE_PATH must be empty or like /wallet')
    .default(''),
  TOKEN_ISSUER: z.string().min(1).default('https://pbw.local'),
  MACHINE_TOKEN_TTL_SECONDS: int(60, 86_400, 3600),
  USER_TOKEN_TTL_SECONDS: int(60, 86_400, 900),
  RATE_LIMITS: z.enum(['on', 'off']).default('on'),
  SHUTDOWN_TIMEOUT_SECONDS: int(1, 600, 25),
  KEY_CACHE_MAX_ENTRIES: int(0, 1_000_000, 10_000),
  KEY_CACHE_TTL_SECONDS: int(0, 3600, 60),
  DB_POOL_MAX: int(1, 200, 10),
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
});

/** Reads and validates the configuration; throws with every problem listed. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const parsed = schema.safeParse(env);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ');
    throw new Error(`Invalid configuration: ${problems}`);
  }
  const e = parsed.data;
  const kind = e.PERSISTENCE ?? (e.DATABASE_URL ? 'postgres' : 'pglite');
  let persistence: Persistence;
  if (kind === 'memory') persistence = { kind: 'memory' };
  else if (kind === 'postgres') {
    if (!e.DATABASE_URL) throw new Error('Invalid configuration: PERSISTENCE=postgres needs DATABASE_URL');
    persistence = { kind: 'database', target: { kind: 'postgres', url: e.DATABASE_URL, poolMax: e.DB_POOL_MAX } };
  } else persistence = { kind: 'database', target: { kind: 'pglite', dataDir: e.PGLITE_DIR } };
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
    dbPoolMax: e.DB_POOL_MAX,
    tokenAudience: e.TOKEN_AUDIENCE ?? `${e.TOKEN_ISSUER.replace(/\/+$/, '')}/wallet`,
    tokenSigningKey: e.TOKEN_SIGNING_KEY ?? null,
    trustProxyHops: e.TRUST_PROXY,
  };
}
