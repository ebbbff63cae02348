import type { WalletUserPrincipal } from '../../domain/identity/principal.js';
import type { Money } from '../../domain/shared/money.js';
import type { Ledger } from '../../domain/wallet/ledger.port.js';
import type { WalletHolders } from '../../domain/wallet/wallet-holders.port.js';
import { tenantCurrency } from './wallet-context.js';

/** The available balance of the person in the token. */
export class GetMyBalance {
  constructor(
    private readonly ledger: Ledger,
    private readonly holders: WalletHolders,
  ) {}

  async execute(principal: WalletUserPrincipal): Promise<{ available: Money }> {
    const currency = await tenantCurrency(this.holders, principal.tenantId);
    return { available: { amount: await this.ledger.balanceOf(principal.tenantId, principal.userId), currency } };
  }
}
