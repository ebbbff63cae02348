import { createLocalJWKSet, decodeJwt, jwtVerify, type JSONWebKeySet, type JWTHeaderParameters } from 'jose';
import { algorithmsOfJwk, CLIENT_KEY_ALGORITHMS, type ClientJwkSet, type PublicJwk } from '../../domain/identity/client-keys.js';
import { TENANT_JWT_CLOCK_TOLERANCE_SECONDS, type TenantJwtVerifier, type TenantSignedJwt } from '../../domain/identity/tenant-jwt.js';

/** Header members that would let a JWT name its own key; a tenant's JWT is verified with its registered keys only. */
const KEY_CARRYING_HEADERS = ['jwk', 'jku', 'x5c', 'x5u'] as const;

/** The longest JWT a tenant may present (an RSA-4096 signature and generous claims fit). */
const MAX_JWT_LENGTH = 8192;

/**
 * A registered key as jose selects it. A key whose algorithm has several names (Ed25519: `EdDSA`,
 * `Ed25519`) goes without its `alg`, so that a JWT under either name finds it; jose still takes
 * it only for an algorithm of its type and curve.
 */
const selectableKey = (jwk: PublicJwk): PublicJwk => {
  if (algorithmsOfJwk(jwk).length < 2) return jwk;
  const { alg: _named, ...rest } = jwk;
  return rest;
};

/**
 * Verifies tenant-signed JWTs (client assertions, subject tokens) with jose against the tenant's
 * registered JWK Set (`createLocalJWKSet`: the key is chosen by `kid`, else by algorithm and
 * type), with the algorithm pinned to ES256, RS256 or Ed25519 (named `EdDSA` or `Ed25519`). Each
 * set's key objects are remembered by the set's JSON, so a tenant's keys are imported once, not
 * per request.
 */
export class JoseTenantJwtVerifier implements TenantJwtVerifier {
  private readonly sets = new Map<string, ReturnType<typeof createLocalJWKSet>>();

  readUnverified(jwt: string): Readonly<Record<string, unknown>> | null {
    if (jwt.length > MAX_JWT_LENGTH) return null;
    try {
      return decodeJwt(jwt) as Record<string, unknown>;
    } catch {
      return null;
    }
  }

  async verify(jwt: string, jwks: ClientJwkSet, now: Date): Promise<TenantSignedJwt | null> {
    if (jwt.length > MAX_JWT_LENGTH || jwks.keys.length === 0) return null;
    const keySet = this.keySet(jwks);
    try {
      const { payload, protectedHeader } = await jwtVerify(
        jwt,
        (header: JWTHeaderParameters, token) => {
          const h = header as unknown as Record<string, unknown>;
          if (KEY_CARRYING_HEADERS.some((m) => h[m] !== undefined)) throw new Error('the JWT carries its own key');
          return keySet(header, token);
        },
        { algorithms: [...CLIENT_KEY_ALGORITHMS], currentDate: now, clockTolerance: TENANT_JWT_CLOCK_TOLERANCE_SECONDS },
      );
      return { header: protectedHeader as Record<string, unknown>, claims: payload as Record<string, unknown> };
    } catch {
      return null;
    }
  }

  private keySet(jwks: ClientJwkSet): ReturnType<typeof createLocalJWKSet> {
    const id = JSON.stringify(jwks);
    let set = this.sets.get(id);
    if (set === undefined) {
      if (this.sets.size >= 1000) this.sets.delete(this.sets.keys().next().value!);
      set = createLocalJWKSet({ keys: jwks.keys.map(selectableKey) } as unknown as JSONWebKeySet);
      this.sets.set(id, set);
    }
    return set;
  }
}
