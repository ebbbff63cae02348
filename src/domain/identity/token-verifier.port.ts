import type { WalletPrincipal } from './principal.js';

/** Turns a presented wallet bearer token into the principal it was issued to. */
export interface TokenVerifier {
  /**
   * Returns the principal of a token this service issued and that is still valid now.
   * Throws DomainError `invalid-token` for anything else: malformed, unsigned, signed with
   * another algorithm or key, another issuer, audience or type, expired. It does not check
   * that the tenant or user still exists (the caller does).
   */
  verify(token: string): Promise<WalletPrincipal>;
}
