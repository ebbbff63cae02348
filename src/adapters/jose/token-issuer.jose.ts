import { randomBytes } from 'node:crypto';
import { SignJWT } from 'jose';
import type { WalletPrincipal } from '../../domain/identity/principal.js';
import type { IssuedToken, TokenIssuer } from '../../domain/identity/token-issuer.port.js';
import { claimsFor } from '../../domain/identity/wallet-token.js';
import type { Clock } from '../../domain/shared/clock.port.js';
import type { SigningKeyRing } from './signing-keys.js';

/** What every wallet token says about where it comes from and for whom it is meant. */
export interface TokenSettings {
  readonly issuer: string;
  readonly audience: string;
  readonly machineTokenTtlSeconds: number;
  readonly userTokenTtlSeconds: number;
}

/** Signs wallet access tokens (JWT) with the ring's current key, its `kid` in the header. */
export class JoseTokenIssuer implements TokenIssuer {
  constructor(
    private readonly keys: SigningKeyRing,
    private readonly clock: Clock,
    private readonly settings: TokenSettings,
  ) {}

  async issue(principal: WalletPrincipal): Promise<IssuedToken> {
    const { typ, claims } = claimsFor(principal);
    const ttl = principal.kind === 'machine' ? this.settings.machineTokenTtlSeconds : this.settings.userTokenTtlSeconds;
    const { kid, alg, key } = await this.keys.current();
    const iat = Math.floor(this.clock.now().getTime() / 1000);
    const accessToken = await new SignJWT({ ...claims })
      .setProtectedHeader({ alg, kid, typ })
      .setIssuer(this.settings.issuer)
      .setAudience(this.settings.audience)
      .setIssuedAt(iat)
      .setExpirationTime(iat + ttl)
      .setJti(randomBytes(16).toString('base64url'))
      .sign(key);
    return { accessToken, expiresIn: ttl };
  }
}
