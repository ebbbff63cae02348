import type { WalletPrincipal } from './principal.js';

/** A verified wallet token: whom it was issued to, and its registered claims. */
export interface VerifiedToken {
  readonly principal: WalletPrincipal;
  readonly jti: string;
  /** Issued at, in seconds since the epoch. */
  readonly iat: number;
  /** Expires at, in seconds since the epoch. */
  readonly exp: number;
  /** The DPoP key thumbprint the token is bound to (`cnf.jkt`), or null/absent for a bearer token. */
  readonly jkt?: string | null;
}

/** Turns a presented wallet bearer token into the principal it was issued to. */
export interface TokenVerifier {
  /**
   * Returns the principal of a token this service issued and that is still valid now.
   * Throws DomainError `invalid-token` for anything else: malformed, unsigned, signed with
   * another algorithm or key, another issuer, audience or type, expired. It does not check
   * that the tenant or user still exists (the caller does).
   */
  verify(token: string): Promise<WalletPrincipal>;
  /** The same check, returning the token's `jti`, `iat` and `exp` with the principal. */
  inspect(token: string): Promise<VerifiedToken>;
}
