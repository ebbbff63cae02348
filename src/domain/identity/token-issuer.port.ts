import type { WalletPrincipal } from './principal.js';

/** A freshly issued access token. */
export interface IssuedToken {
  readonly accessToken: string;
  /** Lifetime in seconds from now. */
  readonly expiresIn: number;
  /** `DPoP` when the token is bound to a proof's key (`cnf.jkt`); absent or `Bearer` otherwise. */
  readonly tokenType?: 'Bearer' | 'DPoP';
}

/** The key a token is bound to (RFC 9449 §6): the SHA-256 JWK thumbprint of the DPoP proof's key. */
export interface TokenBinding {
  readonly jkt: string;
}

/** Issues wallet access tokens. */
export interface TokenIssuer {
  /**
   * Signs a token for the principal: a machine token (tenant backend) or a user token, with the
   * lifetime configured for that kind. The token's type comes from the principal's kind only.
   * With a binding the token carries `cnf: { jkt }` and is answered as `tokenType: 'DPoP'`.
   */
  issue(principal: WalletPrincipal, binding?: TokenBinding | null): Promise<IssuedToken>;
}
