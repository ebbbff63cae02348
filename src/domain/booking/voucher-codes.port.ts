import type { VoucherClaims } from './voucher.js';

/**
 * Signs and verifies vouchers' codes with the service's token-signing key: what the QR code holds
 * and what an operator's scanner verifies offline against the published JWKS.
 */
export interface VoucherCodes {
  /**
   * The claims as a compact JWS, its protected header `{ alg, kid, typ: "voucher+jwt" }` naming
   * the current signing key (the one the JWKS publishes first among its keys).
   */
  sign(claims: VoucherClaims): Promise<string>;
  /**
   * The claims of a code signed by a key the JWKS still publishes (the current one or one retired
   * since), or null when the code is unparseable, forged, altered, of another `typ`, or signed by
   * a key no longer published. Never throws for a bad code.
   */
  verify(code: string): Promise<VoucherClaims | null>;
}
