/*
 * The defaults that both the configuration (`config.ts`, from the environment) and the parts it
 * configures (`ports.ts`, `core.ts`, which an embedding program calls without a configuration)
 * fall back to: each is defined here once.
 */

/** `TOKEN_ISSUER`: the `iss` of wallet tokens. */
export const DEFAULT_TOKEN_ISSUER = 'https://pbw.local';

/** `TOKEN_AUDIENCE` unless set: the `aud` of wallet tokens, the issuer's `/wallet`. */
export const defaultTokenAudience = (issuer: string): string => `${issuer.replace(/\/+$/, '')}/wallet`;

/** `MACHINE_TOKEN_TTL_SECONDS`: how long a machine token lives. */
export const DEFAULT_MACHINE_TOKEN_TTL_SECONDS = 3600;

/** `USER_TOKEN_TTL_SECONDS`: how long a user token lives. */
export const DEFAULT_USER_TOKEN_TTL_SECONDS = 900;

/** `KEY_CACHE_MAX_ENTRIES` and `KEY_CACHE_TTL_SECONDS`: the key, tenant and user caches' bounds. */
export const DEFAULT_KEY_CACHE = { maxEntries: 10_000, ttlMs: 60_000 } as const;

/** `KEY_USAGE_FLUSH_SECONDS`: how often key uses are written. */
export const DEFAULT_KEY_USAGE_FLUSH_MS = 30_000;

/** `QUOTE_TTL_SECONDS`: how long a quote can be ordered (never past the trip's start). */
export const DEFAULT_QUOTE_TTL_SECONDS = 900;
