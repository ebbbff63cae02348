import type { RandomSource } from '../shared/secrets.port.js';
import { DEFAULT_CLIENT_AUTH_METHOD, type ClientAuthMethod, type ClientJwkSet } from './client-keys.js';

/** A wallet tenant (integrator): one contract, one OAuth client for its backend. */
export interface Tenant {
  readonly id: string;
  readonly name: string;
  /** The public OAuth client id of the tenant's backend (`cli_…`). */
  readonly clientId: string;
  /** SHA-256 of the client secret; the secret itself is stored nowhere. */
  readonly clientSecretHash: string;
  /** ISO 4217 currency of the tenant's wallets. */
  readonly currency: string;
  readonly createdAt: Date;
  /** During a secret rotation: SHA-256 of the secret being replaced, valid until `previousSecretValidUntil`. */
  readonly previousClientSecretHash?: string | null;
  readonly previousSecretValidUntil?: Date | null;
  /** The public keys the tenant signs client assertions and subject tokens with (null: none registered). */
  readonly clientJwks?: ClientJwkSet | null;
  /** How the tenant's client authenticates (absent: `client_secret`). */
  readonly authMethod?: ClientAuthMethod;
  /** Whether every token issued to the tenant must be bound to a DPoP key (absent: no). */
  readonly dpopRequired?: boolean;
  /** False for a sandbox tenant (`tenant create --test`), whose data never meets live data (absent: live). */
  readonly livemode?: boolean;
}

/** Whether the tenant is live (true) or a sandbox tenant (false). */
export const livemodeOf = (tenant: Tenant): boolean => tenant.livemode ?? true;

/** A sandbox tenant's client id says so: `cli_test_…` (a live one is `cli_…`). */
export const TEST_CLIENT_ID_PREFIX = 'cli_test_';

/** The tenant's client authentication method. */
export const authMethodOf = (tenant: Tenant): ClientAuthMethod => tenant.authMethod ?? DEFAULT_CLIENT_AUTH_METHOD;

/** Whether the tenant's tokens must be DPoP-bound. */
export const dpopRequiredOf = (tenant: Tenant): boolean => tenant.dpopRequired ?? false;

/**
 * A new tenant as a directory stores it, every setting it leaves out at its default: no secret
 * rotation under way, no client keys, the default client authentication, no DPoP binding, live.
 */
export const newTenant = (tenant: Tenant): Tenant => ({
  previousClientSecretHash: null,
  previousSecretValidUntil: null,
  clientJwks: null,
  authMethod: DEFAULT_CLIENT_AUTH_METHOD,
  dpopRequired: false,
  livemode: true,
  ...tenant,
});

/** A wallet holder: belongs to exactly one tenant. */
export interface WalletUser {
  readonly id: string;
  readonly tenantId: string;
  /** The tenant's own reference for the person; unique within the tenant. */
  readonly externalUserRef: string;
  /** Unique within the tenant, compared case-insensitively; null when the person has none. */
  readonly email: string | null;
  /** A password hash (scrypt), or null when the person cannot log in with a password. */
  readonly passwordHash: string | null;
  readonly createdAt: Date;
  /** Set while an operator has disabled the person: no token, login or delegation works. */
  readonly disabledAt?: Date | null;
  /** Tokens issued before this instant never count again (set when the person is disabled). */
  readonly tokensValidFrom?: Date | null;
}

/** What a tenant's own reference for a user may look like. */
export const EXTERNAL_USER_REF = /^[A-Za-z0-9._:@-]{1,128}$/;
export const isExternalUserRef = (value: string): boolean => EXTERNAL_USER_REF.test(value);

/** The default currency of a new tenant. */
export const DEFAULT_TENANT_CURRENCY = 'THB';

/**
 * Client secrets look like `pbcs_<64 hex chars of 32 random bytes>`: 256 random bits, so a
 * fast hash is enough to store them, and the prefix lets secret scanners recognise a leak.
 */
const CLIENT_SECRET_PREFIX = 'pbcs_';
const CLIENT_SECRET_BYTES = 32;

/** Makes a new plaintext client secret. */
export const generateClientSecret = (random: RandomSource): string => {
  let hex = '';
  for (const b of random.bytes(CLIENT_SECRET_BYTES)) hex += b.toString(16).padStart(2, '0');
  return `${CLIENT_SECRET_PREFIX}${hex}`;
};

/** Emails are compared without regard to case or surrounding blanks. */
export const normalizeEmail = (email: string): string => email.trim().toLowerCase();

/**
 * Compares two strings in time that depends only on their lengths, so a stored hash cannot be
 * guessed byte by byte from response times.
 */
export const constantTimeEqual = (a: string, b: string): boolean => {
  // The length of a hex digest is public; only its content must not leak through timing.
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return diff === 0;
};

/**
 * Whether a presented client secret (its SHA-256) authenticates the tenant now: the current
 * secret, or the previous one until its rotation overlap ends. Both comparisons always run, so
 * the time taken does not tell which secret matched.
 */
export const clientSecretMatches = (tenant: Tenant, presentedHash: string, now: Date): boolean => {
  const current = constantTimeEqual(presentedHash, tenant.clientSecretHash);
  const previousHash = tenant.previousClientSecretHash ?? null;
  const until = tenant.previousSecretValidUntil ?? null;
  const previous = previousHash !== null && constantTimeEqual(presentedHash, previousHash);
  return current || (previous && until !== null && now.getTime() < until.getTime());
};

/** Whether the wallet user is disabled. */
export const isDisabled = (user: WalletUser): boolean => (user.disabledAt ?? null) !== null;

/**
 * Whether a token of this user issued at `iat` (seconds) may be used: the user is not disabled,
 * and the token was not issued before the user's tokens were cut off. `iat` has whole-second
 * precision, so a token issued in the same second as the cut-off counts as issued before it.
 */
export const userTokenCounts = (user: WalletUser, iat: number): boolean => {
  if (isDisabled(user)) return false;
  const from = user.tokensValidFrom ?? null;
  return from === null || iat > Math.floor(from.getTime() / 1000);
};
