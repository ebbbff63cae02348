import type { Money } from '../../domain/shared/money.js';
import type { Ledger } from '../../domain/wallet/ledger.port.js';
import type { WalletHolders } from '../../domain/wallet/wallet-holders.port.js';
import { tenantCurrency } from './wallet-context.js';

/** Balances of some of a tenant's users, for the tenant's own reads of its users (0 when none yet). */
export class GetUserBalances {
  constructor(
    private readonly ledger: Ledger,
    private readonly holders: WalletHolders,
  ) {}

  async execute(tenantId: string, userIds: readonly string[]): Promise<Map<string, Money>> {
    const currency = await tenantCurrency(this.holders, tenantId);
    const found = await this.ledger.balancesOf(tenantId, userIds);
    return new Map(userIds.map((id) => [id, { amount: found.get(id) ?? 0, currency }]));
  }
}
