import type { MachinePrincipal, WalletUserPrincipal } from '../../domain/identity/principal.js';
import type { Clock } from '../../domain/shared/clock.port.js';
import type { Money } from '../../domain/shared/money.js';
import type { Ledger } from '../../domain/wallet/ledger.port.js';
import type { PendingTransfers } from '../../domain/wallet/pending-transfers.port.js';
import type { WalletHolders } from '../../domain/wallet/wallet-holders.port.js';
import { requireHolder, tenantCurrency } from './wallet-caller.js';

/** A balance: what the ledger holds, what pending authorizations hold of it, what can be spent. */
export interface Balance {
  readonly available: Money;
  readonly held: Money;
  readonly ledger: Money;
}

/**
 * A wallet holder's balance now, or as it stood at a past instant `at`: what the ledger held
 * for them then (`ledger`, after every entry made by then), what their authorizations held of it
 * then (`held`; a lapsed one no longer), and what they could spend (`available = ledger − held`).
 */
abstract class BalanceRead {
  constructor(
    private readonly ledger: Ledger,
    private readonly pendingTransfers: PendingTransfers,
    protected readonly holders: WalletHolders,
    private readonly clock: Clock,
  ) {}

  protected async balanceOf(tenantId: string, userId: string, at: Date | null): Promise<Balance> {
    const currency = await tenantCurrency(this.holders, tenantId);
    const account = { kind: 'USER', userId } as const;
    const [ledger, held] =
      at === null
        ? await Promise.all([this.ledger.balanceOf(tenantId, userId), this.pendingTransfers.heldOn(tenantId, account, this.clock.now())])
        : await Promise.all([
            this.ledger.balanceBefore(tenantId, userId, new Date(at.getTime() + 1)),
            this.pendingTransfers.heldThen(tenantId, account, at),
          ]);
    return { available: { amount: ledger - held, currency }, held: { amount: held, currency }, ledger: { amount: ledger, currency } };
  }
}

/** The balance of the person in the token, now or at `at`. */
export class GetMyBalance extends BalanceRead {
  execute(principal: WalletUserPrincipal, at: Date | null = null): Promise<Balance> {
    return this.balanceOf(principal.tenantId, principal.userId, at);
  }
}

/** The balance of one of the calling tenant's users, now or at `at`; `user-not-found` outside the tenant. */
export class GetUserBalance extends BalanceRead {
  async execute(machine: MachinePrincipal, userId: string, at: Date | null = null): Promise<Balance> {
    await requireHolder(this.holders, machine.tenantId, userId);
    return this.balanceOf(machine.tenantId, userId, at);
  }
}
