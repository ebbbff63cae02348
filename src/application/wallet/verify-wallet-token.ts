import type { WalletPrincipal } from '../../domain/identity/principal.js';
import { userTokenCounts, type WalletUser } from '../../domain/identity/tenant.js';
import type { TenantDirectory } from '../../domain/identity/tenant-directory.port.js';
import type { TokenRevocationList } from '../../domain/identity/token-revocation.port.js';
import type { TokenVerifier, VerifiedToken } from '../../domain/identity/token-verifier.port.js';
import { bearerToken, invalidToken } from '../../domain/identity/wallet-token.js';

/** A wallet caller that passed every check, with what the checks read. */
export interface AuthenticatedWalletCaller {
  readonly principal: WalletPrincipal;
  /** The wallet user of a user token (null for a machine token). */
  readonly user: WalletUser | null;
  readonly token: VerifiedToken;
}

/**
 * Resolves an `Authorization` header to the wallet caller: a valid token of ours, not revoked,
 * whose tenant (and, for a user token, whose user) still exists, and whose user is not disabled
 * and was not cut off after the token was issued. Everything else is `invalid-token`.
 */
export class VerifyWalletToken {
  constructor(
    private readonly verifier: TokenVerifier,
    private readonly tenants: TenantDirectory,
    private readonly revocations: TokenRevocationList,
  ) {}

  async execute(authorization: string | undefined): Promise<WalletPrincipal> {
    return (await this.authenticate(authorization)).principal;
  }

  /**
   * The same check, also returning the wallet user that it read for a user token (null for a
   * machine token), so a route about that person need not read it again in the same request.
   */
  authenticate(authorization: string | undefined): Promise<AuthenticatedWalletCaller> {
    return this.check(bearerToken(authorization));
  }

  /** The same check on a bare token (introspection). */
  async check(token: string): Promise<AuthenticatedWalletCaller> {
    const verified = await this.verifier.inspect(token);
    const revoked = this.revocations.isRevoked(verified.jti);
    // Never-revoked tokens answer from memory; only a feed outage costs a read here.
    if (revoked === true || (revoked !== false && (await revoked))) throw invalidToken();
    const { principal } = verified;
    if (principal.kind === 'user') {
      const user = await this.tenants.findUser(principal.tenantId, principal.userId);
      if (user === null || !userTokenCounts(user, verified.iat)) throw invalidToken();
      return { principal, user, token: verified };
    }
    const tenant = await this.tenants.findTenant(principal.tenantId);
    if (tenant === null || tenant.clientId !== principal.clientId) throw invalidToken();
    return { principal, user: null, token: verified };
  }
}
