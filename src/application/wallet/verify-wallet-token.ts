import type { WalletPrincipal } from '../../domain/identity/principal.js';
import type { WalletUser } from '../../domain/identity/tenant.js';
import type { TenantDirectory } from '../../domain/identity/tenant-directory.port.js';
import type { TokenVerifier } from '../../domain/identity/token-verifier.port.js';
import { bearerToken, invalidToken } from '../../domain/identity/wallet-token.js';

/**
 * Resolves an `Authorization` header to the wallet caller: a valid token of ours whose tenant
 * (and, for a user token, whose user) still exists. Everything else is `invalid-token`.
 */
export class VerifyWalletToken {
  constructor(
    private readonly verifier: TokenVerifier,
    private readonly tenants: TenantDirectory,
  ) {}

  async execute(authorization: string | undefined): Promise<WalletPrincipal> {
    return (await this.authenticate(authorization)).principal;
  }

  /**
   * The same check, also returning the wallet user that it read for a user token (null for a
   * machine token), so a route about that person need not read it again in the same request.
   */
  async authenticate(authorization: string | undefined): Promise<{ principal: WalletPrincipal; user: WalletUser | null }> {
    const principal = await this.verifier.verify(bearerToken(authorization));
    if (principal.kind === 'user') {
      const user = await this.tenants.findUser(principal.tenantId, principal.userId);
      if (user === null) throw invalidToken();
      return { principal, user };
    }
    const tenant = await this.tenants.findTenant(principal.tenantId);
    if (tenant === null || tenant.clientId !== principal.clientId) throw invalidToken();
    return { principal, user: null };
  }
}
