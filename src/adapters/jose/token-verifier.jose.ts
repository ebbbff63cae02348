import { createHash } from 'node:crypto';
import { jwtVerify, type JWTHeaderParameters } from 'jose';
import type { WalletPrincipal } from '../../domain/identity/principal.js';
import type { TokenVerifier, VerifiedToken } from '../../domain/identity/token-verifier.port.js';
import { invalidToken, jktFromClaims, principalFromToken } from '../../domain/identity/wallet-token.js';
import type { Clock } from '../../domain/shared/clock.port.js';
import { BoundedCache, type CacheCounts } from '../cache/lru-caches.js';
import { SIGNING_ALGORITHMS, type SigningKeyRing } from './signing-keys.js';
import type { TokenSettings } from './token-issuer.jose.js';

/** Clock skew tolerated between instances, in seconds. */
export const CLOCK_TOLERANCE_SECONDS = 10;

/** Header members that would let a token name its own key; a token of ours never has them. */
const KEY_CARRYING_HEADERS = ['jwk', 'jku', 'x5c', 'x5u', 'x5t', 'x5t#S256'] as const;

/**
 * Verifies wallet tokens: the algorithm is pinned to the asymmetric ones the ring uses and must
 * match the key named by `kid`; issuer, audience, lifetime (small tolerance) and type are checked,
 * and `exp − iat` may not exceed the lifetime the service issues that kind of token for;
 * a token that carries or points to its own key is refused. Verified tokens are remembered in a
 * bounded cache keyed by the token's SHA-256, and `exp` is checked again on every use.
 */
export class JoseTokenVerifier implements TokenVerifier {
  private readonly cache: BoundedCache<VerifiedToken>;

  constructor(
    private readonly keys: SigningKeyRing,
    private readonly clock: Clock,
    private readonly settings: TokenSettings,
    options: { readonly cacheEntries: number },
  ) {
    this.cache = new BoundedCache(options.cacheEntries);
  }

  /** Tokens answered from the cache of verified tokens, and tokens verified, since start. */
  get counts(): CacheCounts {
    return this.cache.counts;
  }

  async verify(token: string): Promise<WalletPrincipal> {
    return (await this.inspect(token)).principal;
  }

  async inspect(token: string): Promise<VerifiedToken> {
    if (token.length > 8192) throw invalidToken();
    const now = this.clock.now();
    const nowSeconds = now.getTime() / 1000;
    const hash = createHash('sha256').update(token).digest('base64url');
    const hit = this.cache.get(hash);
    if (hit !== undefined) {
      if (nowSeconds <= hit.exp + CLOCK_TOLERANCE_SECONDS) return hit;
      this.cache.delete(hash);
      throw invalidToken();
    }
    let verified: Awaited<ReturnType<typeof jwtVerify>>;
    try {
      verified = await jwtVerify(token, (header) => this.keyFor(header), {
        algorithms: [...SIGNING_ALGORITHMS],
        issuer: this.settings.issuer,
        audience: this.settings.audience,
        clockTolerance: CLOCK_TOLERANCE_SECONDS,
        currentDate: now,
        requiredClaims: ['iat', 'exp', 'jti', 'sub'],
        maxTokenAge: Math.max(this.settings.machineTokenTtlSeconds, this.settings.userTokenTtlSeconds) + CLOCK_TOLERANCE_SECONDS,
      });
    } catch {
      throw invalidToken();
    }
    const principal = principalFromToken(verified.protectedHeader.typ, verified.payload as Record<string, unknown>);
    const { exp, iat, jti } = verified.payload;
    const jkt = jktFromClaims(verified.payload as Record<string, unknown>);
    if (
      principal === null ||
      jkt === undefined ||
      typeof exp !== 'number' ||
      typeof iat !== 'number' ||
      typeof jti !== 'string' ||
      jti.length === 0 ||
      jti.length > 256 ||
      // No token of ours lives longer than its kind's lifetime, whatever its exp says.
      exp - iat > this.lifetimeOf(principal)
    ) {
      throw invalidToken();
    }
    const result: VerifiedToken = { principal, jti, iat, exp, jkt };
    this.cache.set(hash, result);
    return result;
  }

  /** How long the service issues a token of this kind for: machine, or user (password and delegated alike). */
  private lifetimeOf(principal: WalletPrincipal): number {
    return principal.kind === 'machine' ? this.settings.machineTokenTtlSeconds : this.settings.userTokenTtlSeconds;
  }

  private async keyFor(header: JWTHeaderParameters) {
    const h = header as unknown as Record<string, unknown>;
    if (KEY_CARRYING_HEADERS.some((m) => h[m] !== undefined)) throw new Error('token carries its own key');
    if (typeof header.kid !== 'string' || header.kid.length === 0 || header.kid.length > 128) throw new Error('no kid');
    const key = await this.keys.verificationKey(header.kid, header.alg);
    if (key === null) throw new Error('unknown kid');
    return key;
  }
}
