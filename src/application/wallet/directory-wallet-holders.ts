import type { TenantDirectory } from '../../domain/identity/tenant-directory.port.js';
import type { WalletHolders } from '../../domain/wallet/wallet-holders.port.js';

/** How many tenants' currencies each instance remembers. */
const CURRENCY_CACHE_ENTRIES = 10_000;

/**
 * Tenants' currencies and users, as the identity side's directory knows them. A tenant's currency
 * never changes once its wallets hold money, so it is remembered per instance (bounded) and every
 * write saves a round trip; user membership is always asked.
 */
export class DirectoryWalletHolders implements WalletHolders {
  private readonly currencies = new Map<string, string>();

  constructor(private readonly tenants: TenantDirectory) {}

  async currencyOf(tenantId: string): Promise<string | null> {
    const known = this.currencies.get(tenantId);
    if (known !== undefined) return known;
    const currency = (await this.tenants.findTenant(tenantId))?.currency ?? null;
    if (currency !== null) {
      if (this.currencies.size >= CURRENCY_CACHE_ENTRIES) this.currencies.clear();
      this.currencies.set(tenantId, currency);
    }
    return currency;
  }

  async isHolder(tenantId: string, userId: string): Promise<boolean> {
    return (await this.tenants.findUser(tenantId, userId)) !== null;
  }
}
