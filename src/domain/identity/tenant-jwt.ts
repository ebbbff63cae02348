import type { ClientJwkSet } from './client-keys.js';

/** `client_assertion_type` of a JWT client assertion (RFC 7523 §2.2). */
export const JWT_BEARER_ASSERTION_TYPE = 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer';

/** RFC 8693 values of the token exchange. */
export const TOKEN_EXCHANGE = {
  grantType: 'urn:ietf:params:oauth:grant-type:token-exchange',
  jwtTokenType: 'urn:ietf:params:oauth:token-type:jwt',
  accessTokenType: 'urn:ietf:params:oauth:token-type:access_token',
} as const;

/** How far ahead a tenant-signed JWT (client assertion, subject token) may expire: 5 minutes. */
export const TENANT_JWT_MAX_LIFETIME_SECONDS = 300;

/** Clock skew tolerated between a tenant's backend and the service, in seconds. */
export const TENANT_JWT_CLOCK_TOLERANCE_SECONDS = 10;

/** A JWT whose signature a key of the tenant's JWK Set verified; its claims are not checked yet. */
export interface TenantSignedJwt {
  readonly header: Readonly<Record<string, unknown>>;
  readonly claims: Readonly<Record<string, unknown>>;
}

/** Verifies the signature of JWTs that tenants sign with their registered keys. */
export interface TenantJwtVerifier {
  /** The claims of a compact JWT without any check (to find whose key should verify it), or null when it is no JWT. */
  readUnverified(jwt: string): Readonly<Record<string, unknown>> | null;
  /**
   * The header and claims when a key of `jwks` verifies the signature with an allowed algorithm
   * (ES256, RS256, EdDSA, Ed25519) and `exp`/`nbf`, when present, hold at `now` (small tolerance); null
   * otherwise, including a header that carries or points to its own key.
   */
  verify(jwt: string, jwks: ClientJwkSet, now: Date): Promise<TenantSignedJwt | null>;
}

/** What a tenant-signed JWT must say: its issuer and subject, and the audiences that are ours. */
export interface TenantJwtExpectations {
  readonly issuer: string;
  /** The exact subject, or a test of it (a subject token's `sub` is an externalUserRef). */
  readonly subject: string | ((sub: string) => boolean);
  readonly audiences: readonly string[];
  readonly nowSeconds: number;
}

/** The accepted claims: the one-time `jti`, the expiry and the subject. */
export interface TenantJwtAccepted {
  readonly jti: string;
  readonly exp: number;
  readonly sub: string;
}

/**
 * The two kinds of JWT a tenant signs with its registered keys. Each has its own `typ` (RFC 8725
 * §3.11), so that one kind is never taken for the other, and both share one replay namespace
 * (`REPLAY_NAMESPACE.tenantJwt`), so that an untyped JWT serves once, in one role.
 */
export type TenantJwtKind = 'client-assertion' | 'subject-token';

/** The `typ` of an explicitly typed client assertion (draft-ietf-oauth-rfc7523bis §4). */
export const CLIENT_ASSERTION_TYP = 'client-authentication+jwt';

/**
 * A `typ` as a media type compares (RFC 7515 §4.1.9): without case, `application/` optional.
 * Null when there is no `typ`.
 */
const mediaTypeOf = (typ: unknown): string | null | undefined => {
  if (typ === undefined) return null;
  if (typeof typ !== 'string') return undefined;
  const lower = typ.toLowerCase();
  return lower.startsWith('application/') ? lower.slice('application/'.length) : lower;
};

/**
 * Whether the header's `typ` fits the kind: a client assertion is untyped, `JWT` or
 * `client-authentication+jwt`; a subject token is untyped or `JWT`. Any other type (a DPoP proof's
 * `dpop+jwt`, an access token's `at+jwt`, a client assertion's type on a subject token…) is
 * another kind of JWT and refused.
 */
export const tenantJwtTypeFits = (header: Readonly<Record<string, unknown>>, kind: TenantJwtKind): boolean => {
  const type = mediaTypeOf(header.typ);
  if (type === undefined) return false;
  if (type === null || type === 'jwt') return true;
  return kind === 'client-assertion' && type === CLIENT_ASSERTION_TYP;
};

/**
 * `aud` names us and nobody else: one of our audiences, or an array (at most 10) of which every
 * member is one of them. An array that also names another party is refused: the JWT was made for
 * someone else too, who could present it here (draft-ietf-oauth-rfc7523bis).
 */
const audienceMatches = (aud: unknown, ours: readonly string[]): boolean => {
  if (typeof aud === 'string') return ours.includes(aud);
  return Array.isArray(aud) && aud.length > 0 && aud.length <= 10 && aud.every((a) => typeof a === 'string' && ours.includes(a));
};

/**
 * The claim rules of a client assertion (RFC 7523 §3) and of a token-exchange subject token:
 * `iss` is the client, `sub` as expected, `aud` one of our audiences (or an array of nothing
 * else), `exp` is present, not past and at most 5 minutes ahead, `iat` (when present) not in
 * the future, and a `jti` of 1-256 characters to be used once. Null when any rule fails.
 */
export const acceptTenantJwtClaims = (
  claims: Readonly<Record<string, unknown>>,
  expect: TenantJwtExpectations,
): TenantJwtAccepted | null => {
  const { iss, sub, aud, exp, iat, nbf, jti } = claims;
  const tolerance = TENANT_JWT_CLOCK_TOLERANCE_SECONDS;
  const now = expect.nowSeconds;
  if (iss !== expect.issuer || typeof sub !== 'string') return null;
  if (typeof expect.subject === 'string' ? sub !== expect.subject : !expect.subject(sub)) return null;
  if (!audienceMatches(aud, expect.audiences)) return null;
  if (typeof exp !== 'number' || !Number.isFinite(exp)) return null;
  if (exp <= now - tolerance || exp > now + TENANT_JWT_MAX_LIFETIME_SECONDS + tolerance) return null;
  if (iat !== undefined && (typeof iat !== 'number' || iat > now + tolerance)) return null;
  if (nbf !== undefined && (typeof nbf !== 'number' || nbf > now + tolerance)) return null;
  if (typeof jti !== 'string' || jti.length === 0 || jti.length > 256) return null;
  return { jti, exp, sub };
};
