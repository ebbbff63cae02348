import type { WalletPrincipal } from '../../domain/identity/principal.js';
import type { Clock } from '../../domain/shared/clock.port.js';
import type { IdGenerator } from '../../domain/shared/ids.port.js';
import { initiatorOf } from '../../domain/wallet/ledger.js';
import type { Ledger } from '../../domain/wallet/ledger.port.js';
import type { Initiator, Transaction } from '../../domain/wallet/transaction.js';
import type { WalletHolders } from '../../domain/wallet/wallet-holders.port.js';
import { tenantCurrency } from './wallet-caller.js';

/** What every money movement records besides its own fields: a new id, who started it and when. */
export interface MovementStamp {
  readonly id: string;
  readonly initiatedBy: Initiator;
  readonly createdAt: Date;
}

/**
 * The steps the four money use cases (top-up, payment, transfer, refund) share, written once:
 * the tenant's currency, then one ledger write, stamped with a new `txn_…` id, the initiator and
 * the time. Each use case keeps only its own checks and its ledger call. A ledger write is atomic
 * on its own (the `Ledger` port's promise), so it needs no unit of work of its own: under an
 * Idempotency-Key it joins the key's.
 */
export abstract class MoneyMovement {
  constructor(
    protected readonly ledger: Ledger,
    protected readonly holders: WalletHolders,
    private readonly ids: IdGenerator,
    private readonly clock: Clock,
  ) {}

  /** The tenant's currency, in which an amount is read; `tenant-not-found` when the tenant is gone. */
  protected currencyOf(tenantId: string): Promise<string> {
    return tenantCurrency(this.holders, tenantId);
  }

  /** Makes one ledger write, stamped for `principal`. */
  protected record(principal: WalletPrincipal, write: (stamp: MovementStamp) => Promise<Transaction>): Promise<Transaction> {
    return write({ id: this.ids.next('txn'), initiatedBy: initiatorOf(principal), createdAt: this.clock.now() });
  }
}
