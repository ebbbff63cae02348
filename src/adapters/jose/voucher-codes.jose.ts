import { SignJWT, jwtVerify, type JWTHeaderParameters } from 'jose';
import { VOUCHER_TYPE, isVoucherClaims, type VoucherClaims } from '../../domain/booking/voucher.js';
import type { VoucherCodes } from '../../domain/booking/voucher-codes.port.js';
import { SIGNING_ALGORITHMS, type SigningKeyRing } from './signing-keys.js';

/** Thrown inside the verification when the code names no published key: answered as an invalid code. */
class UnknownKey extends Error {}

/**
 * Vouchers' codes signed with the wallet's ring of token-signing keys: whatever the JWKS publishes
 * verifies them, so a code keeps verifying after a rotation for as long as its key stays published.
 * The `typ` keeps a voucher and a wallet token apart: neither is accepted as the other.
 */
export class JoseVoucherCodes implements VoucherCodes {
  constructor(private readonly keys: SigningKeyRing) {}

  async sign(claims: VoucherClaims): Promise<string> {
    const { kid, alg, key } = this.keys.currentIfFresh() ?? (await this.keys.current());
    // Claims exactly as CONTRACT §6.5 lists them, in its order.
    const payload = { oid: claims.oid, op: claims.op, sta: claims.sta, pax: claims.pax, iat: claims.iat };
    return new SignJWT(payload).setProtectedHeader({ alg, kid, typ: VOUCHER_TYPE }).sign(key);
  }

  async verify(code: string): Promise<VoucherClaims | null> {
    if (code.length > 4096) return null;
    try {
      const { payload } = await jwtVerify(
        code,
        async (header: JWTHeaderParameters) => {
          const key = typeof header.kid === 'string' ? await this.keys.verificationKey(header.kid, header.alg) : null;
          if (key === null) throw new UnknownKey();
          return key;
        },
        { typ: VOUCHER_TYPE, algorithms: [...SIGNING_ALGORITHMS] },
      );
      return isVoucherClaims(payload) ? { oid: payload.oid, op: payload.op, sta: payload.sta, pax: payload.pax, iat: payload.iat } : null;
    } catch {
      return null;
    }
  }
}
