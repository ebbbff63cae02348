import { DomainError } from '../../domain/shared/errors.js';
import type { WalletHolders } from '../../domain/wallet/wallet-holders.port.js';

/** The tenant's currency; `tenant-not-found` when the tenant is gone (its tokens are then stale). */
export async function tenantCurrency(holders: WalletHolders, tenantId: string): Promise<string> {
  const currency = await holders.currencyOf(tenantId);
  if (currency === null) throw new DomainError('tenant-not-found');
  return currency;
}

/** Refuses a user id that is not a wallet user of this tenant, with the same answer as an unknown one. */
export async function requireHolder(holders: WalletHolders, tenantId: string, userId: string): Promise<void> {
  if (!(await holders.isHolder(tenantId, userId))) throw new DomainError('user-not-found');
}
