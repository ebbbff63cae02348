import type { WalletPrincipal } from '../../domain/identity/principal.js';
import type { Clock } from '../../domain/shared/clock.port.js';
import type { IdGenerator } from '../../domain/shared/ids.port.js';
import { initiatorOf } from '../../domain/wallet/ledger.js';
import type { Ledger } from '../../domain/wallet/ledger.port.js';
import type { Initiator, Transaction } from '../../domain/wallet/transaction.js';
import type { WalletHolders } from '../../domain/wallet/wallet-holders.port.js';
import { tenantCurrency } from './wallet-context.js';
import type { UnitOfWork } from '../unit-of-work.port.js';

/** What every money movement records besides its own fields: a new id, who started it and when. */
export interface MovementStamp {
  readonly id: string;
  readonly initiatedBy: Initiator;
  readonly createdAt: Date;
}

/**
 * The steps the four money use cases (top-up, payment, transfer, refund) share, written once:
 * the tenant's currency, then one ledger write in one unit of work, stamped with a new `txn_…`
 * id, the initiator and the time. Each use case keeps only its own checks and its ledger call.
 */
export abstract class MoneyMovement {
  constructor(
    protected readonly ledger: Ledger,
    protected readonly holders: WalletHolders,
    private readonly ids: IdGenerator,
    private readonly clock: Clock,
    private readonly unitOfWork: UnitOfWork,
  ) {}

  /** The tenant's currency, in which an amount is read; `tenant-not-found` when the tenant is gone. */
  protected currencyOf(tenantId: string): Promise<string> {
    return tenantCurrency(this.holders, tenantId);
  }

  /** Runs one ledger write in one unit, stamped for `principal`. */
  protected record(principal: WalletPrincipal, write: (stamp: MovementStamp) => Promise<Transaction>): Promise<Transaction> {
    const initiatedBy = initiatorOf(principal);
    return this.unitOfWork.run(() => write({ id: this.ids.next('txn'), initiatedBy, createdAt: this.clock.now() }));
  }
}
