import { DomainError } from '../shared/errors.js';

/**
 * The algorithms a DPoP proof may be signed with (asymmetric only; `none` and HMAC never). An
 * Ed25519 signature is taken under either name, `EdDSA` or the fully-specified `Ed25519` (RFC 9864).
 */
export const DPOP_ALGORITHMS = ['ES256', 'RS256', 'EdDSA', 'Ed25519'] as const;

/** The JOSE `typ` of a DPoP proof (RFC 9449 §4.2). */
export const DPOP_PROOF_TYP = 'dpop+jwt';

/** How far a proof's `iat` may be from now, either way, in seconds. */
export const DPOP_PROOF_MAX_AGE_SECONDS = 60;

/** The token type of a DPoP-bound access token (RFC 9449 §5), as the token response says it. */
export const DPOP_TOKEN_TYPE = 'DPoP';

/** A proof whose signature its embedded public key verified (RFC 9449 §4.3 checks 1-8 done). */
export interface VerifiedDpopProof {
  readonly claims: Readonly<Record<string, unknown>>;
  /** The RFC 7638 SHA-256 thumbprint of the embedded key: what a bound token's `cnf.jkt` names. */
  readonly jkt: string;
}

/** Verifies DPoP proof JWTs (RFC 9449 §4.3): `typ`, algorithm, embedded public key and signature. */
export interface DpopProofVerifier {
  /**
   * The claims and key thumbprint of a proof whose `typ` is `dpop+jwt`, whose `alg` is one of
   * `DPOP_ALGORITHMS`, whose header carries a public `jwk` (no private member) that verifies
   * the signature; null for anything else.
   */
  verify(proof: string): Promise<VerifiedDpopProof | null>;
  /** `ath`: base64url of the SHA-256 of the access token's ASCII. */
  accessTokenHash(accessToken: string): string;
}

/** The OAuth error a DPoP refusal is answered with (RFC 9449 §7.1, RFC 6750 §3.1). */
export type DpopOAuthError = 'invalid_dpop_proof' | 'invalid_token';

/**
 * A refused DPoP proof, or a bound token presented without its proof: the problem reason is
 * always `invalid-dpop-proof`, `oauthError` the code for `WWW-Authenticate` / the token error.
 */
export class DpopRefusal extends DomainError {
  override readonly name = 'DpopRefusal';
  constructor(
    readonly oauthError: DpopOAuthError,
    message?: string,
  ) {
    super('invalid-dpop-proof', message === undefined ? {} : { message });
  }
}

/**
 * The `htu` form of a request URL: scheme, host (lower case, default port dropped) and path,
 * without query or fragment (RFC 9449 §4.3 check 9). Null when it is no absolute http(s) URL.
 */
export const htuOf = (url: string): string | null => {
  const m = /^(https?):\/\/([^/?#]+)([^?#]*)/i.exec(url);
  if (m === null) return null;
  const scheme = m[1]!.toLowerCase();
  let host = m[2]!.toLowerCase();
  if (host.includes('@')) return null;
  if ((scheme === 'https' && host.endsWith(':443')) || (scheme === 'http' && host.endsWith(':80'))) host = host.replace(/:\d+$/, '');
  const path = m[3] === '' ? '/' : m[3]!;
  return `${scheme}://${host}${path}`;
};

/** What the request a proof must match looks like. */
export interface DpopRequest {
  /** The HTTP method, as sent. */
  readonly method: string;
  /** The absolute URL the request was sent to (query and fragment are ignored). */
  readonly url: string;
  readonly nowSeconds: number;
  /** For a request with a bound token: the token's `ath`; null at the token endpoint. */
  readonly accessTokenHash: string | null;
}

/**
 * RFC 9449 §4.3 checks 9-12 on a verified proof's claims: `htm` is the method, `htu` the URL
 * without query or fragment, `iat` within 60 s of now, a `jti` of 1-256 characters, and `ath`
 * the token's hash exactly when a token is presented. Throws `DpopRefusal('invalid_dpop_proof')`
 * naming the failed check.
 */
export const acceptDpopClaims = (claims: Readonly<Record<string, unknown>>, request: DpopRequest): { jti: string; iat: number } => {
  const refuse = (why: string): DpopRefusal => new DpopRefusal('invalid_dpop_proof', `The DPoP proof is not valid: ${why}.`);
  const { htm, htu, iat, jti, ath } = claims;
  if (typeof jti !== 'string' || jti.length === 0 || jti.length > 256) throw refuse('jti is missing');
  if (htm !== request.method) throw refuse('htm is not the request method');
  const expected = htuOf(request.url);
  if (typeof htu !== 'string' || expected === null || htuOf(htu) !== expected) throw refuse('htu is not the request URL');
  if (typeof iat !== 'number' || !Number.isFinite(iat) || Math.abs(iat - request.nowSeconds) > DPOP_PROOF_MAX_AGE_SECONDS) {
    throw refuse('iat is not within 60 seconds of now');
  }
  if (request.accessTokenHash === null) {
    if (ath !== undefined) throw refuse('ath is given without an access token');
  } else if (ath !== request.accessTokenHash) {
    throw refuse('ath is not the hash of the access token');
  }
  return { jti, iat };
};

/** Extracts the token of an `Authorization: DPoP <token>` header, or null when the scheme is another. */
export const dpopSchemeToken = (authorization: string | undefined): string | null => {
  if (authorization === undefined) return null;
  const match = /^DPoP +([A-Za-z0-9\-._~+/]+=*) *$/i.exec(authorization);
  if (match === null || match[1]!.length > 8192) return null;
  return match[1]!;
};
