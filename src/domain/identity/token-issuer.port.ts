import type { WalletPrincipal } from './principal.js';

/** A freshly issued access token. */
export interface IssuedToken {
  readonly accessToken: string;
  /** Lifetime in seconds from now. */
  readonly expiresIn: number;
}

/** Issues wallet access tokens. */
export interface TokenIssuer {
  /**
   * Signs a token for the principal: a machine token (tenant backend) or a user token, with the
   * lifetime configured for that kind. The token's type comes from the principal's kind only.
   */
  issue(principal: WalletPrincipal): Promise<IssuedToken>;
}
