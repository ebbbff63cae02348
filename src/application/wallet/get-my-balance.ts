import type { WalletUserPrincipal } from '../../domain/identity/principal.js';
import type { Clock } from '../../domain/shared/clock.port.js';
import type { Money } from '../../domain/shared/money.js';
import type { Ledger } from '../../domain/wallet/ledger.port.js';
import type { PendingTransfers } from '../../domain/wallet/pending-transfers.port.js';
import type { WalletHolders } from '../../domain/wallet/wallet-holders.port.js';
import { tenantCurrency } from './wallet-context.js';

/**
 * The balance of the person in the token: what the ledger holds for them (`ledger`), what their
 * pending authorizations hold of it now (`held`, a lapsed one no longer), and what they can spend
 * (`available = ledger − held`).
 */
export class GetMyBalance {
  constructor(
    private readonly ledger: Ledger,
    private readonly pendingTransfers: PendingTransfers,
    private readonly holders: WalletHolders,
    private readonly clock: Clock,
  ) {}

  async execute(principal: WalletUserPrincipal): Promise<{ available: Money; held: Money; ledger: Money }> {
    const currency = await tenantCurrency(this.holders, principal.tenantId);
    const [ledger, held] = await Promise.all([
      this.ledger.balanceOf(principal.tenantId, principal.userId),
      this.pendingTransfers.heldOn(principal.tenantId, { kind: 'USER', userId: principal.userId }, this.clock.now()),
    ]);
    return { available: { amount: ledger - held, currency }, held: { amount: held, currency }, ledger: { amount: ledger, currency } };
  }
}
