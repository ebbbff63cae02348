import { createHash } from 'node:crypto';
import { calculateJwkThumbprint, decodeProtectedHeader, EmbeddedJWK, jwtVerify, type JWK } from 'jose';
import { hasPrivateMembers } from '../../domain/identity/client-keys.js';
import { DPOP_ALGORITHMS, DPOP_PROOF_TYP, type DpopProofVerifier, type VerifiedDpopProof } from '../../domain/identity/dpop.js';

const MAX_PROOF_LENGTH = 8192;

/**
 * Verifies DPoP proofs with jose (RFC 9449 §4.3 checks 1-8): a compact JWS whose protected
 * header has `typ: dpop+jwt`, an asymmetric `alg` of the allow-list, and a public `jwk` (a key
 * with any private member is refused before it is imported) that verifies the signature.
 * Returns the claims and the key's RFC 7638 thumbprint.
 */
export class JoseDpopProofVerifier implements DpopProofVerifier {
  async verify(proof: string): Promise<VerifiedDpopProof | null> {
    if (proof.length === 0 || proof.length > MAX_PROOF_LENGTH) return null;
    try {
      const header = decodeProtectedHeader(proof);
      const jwk = header.jwk as (JWK & Record<string, unknown>) | undefined;
      if (typeof jwk !== 'object' || jwk === null || hasPrivateMembers(jwk)) return null;
      if (header.jku !== undefined || header.x5c !== undefined || header.x5u !== undefined) return null;
      const { payload, protectedHeader } = await jwtVerify(proof, EmbeddedJWK, {
        typ: DPOP_PROOF_TYP,
        algorithms: [...DPOP_ALGORITHMS],
      });
      // jose compares `typ` after dropping an `application/` prefix; RFC 9449 wants exactly dpop+jwt.
      if (protectedHeader.typ?.toLowerCase() !== DPOP_PROOF_TYP) return null;
      return { claims: payload as Record<string, unknown>, jkt: await calculateJwkThumbprint(jwk, 'sha256') };
    } catch {
      return null;
    }
  }

  accessTokenHash(accessToken: string): string {
    return createHash('sha256').update(accessToken, 'ascii').digest('base64url');
  }
}
