import type { TenantDirectory } from '../../domain/identity/tenant-directory.port.js';
import type { WalletHolders } from '../../domain/wallet/wallet-holders.port.js';

/** Tenants' currencies and users, as the identity side's directory knows them. */
export class DirectoryWalletHolders implements WalletHolders {
  constructor(private readonly tenants: TenantDirectory) {}

  async currencyOf(tenantId: string): Promise<string | null> {
    return (await this.tenants.findTenant(tenantId))?.currency ?? null;
  }

  async isHolder(tenantId: string, userId: string): Promise<boolean> {
    return (await this.tenants.findUser(tenantId, userId)) !== null;
  }
}
