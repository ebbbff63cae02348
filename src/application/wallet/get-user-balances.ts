import type { MachinePrincipal } from '../../domain/identity/principal.js';
import type { Money } from '../../domain/shared/money.js';
import type { Ledger } from '../../domain/wallet/ledger.port.js';
import type { WalletHolders } from '../../domain/wallet/wallet-holders.port.js';
import { tenantCurrency } from './wallet-caller.js';

/**
 * Balances of some of the calling tenant's users, for the tenant's own reads of its users (0 when
 * none yet). Only the caller's tenant's accounts are read: another tenant's user reads as 0.
 */
export class GetUserBalances {
  constructor(
    private readonly ledger: Ledger,
    private readonly holders: WalletHolders,
  ) {}

  async execute(machine: MachinePrincipal, userIds: readonly string[]): Promise<Map<string, Money>> {
    const { tenantId } = machine;
    const currency = await tenantCurrency(this.holders, tenantId);
    const found = await this.ledger.balancesOf(tenantId, userIds);
    return new Map(userIds.map((id) => [id, { amount: found.get(id) ?? 0, currency }]));
  }
}
