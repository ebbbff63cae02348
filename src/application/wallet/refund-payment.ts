import type { MachinePrincipal } from '../../domain/identity/principal.js';
import type { Clock } from '../../domain/shared/clock.port.js';
import type { IdGenerator } from '../../domain/shared/ids.port.js';
import { amountIn, initiatorOf, type AmountInput } from '../../domain/wallet/ledger.js';
import type { Ledger } from '../../domain/wallet/ledger.port.js';
import type { Transaction } from '../../domain/wallet/transaction.js';
import type { WalletHolders } from '../../domain/wallet/wallet-holders.port.js';
import { tenantCurrency } from './wallet-context.js';
import type { UnitOfWork } from '../unit-of-work.port.js';

export interface RefundPaymentCommand {
  readonly principal: MachinePrincipal;
  readonly transactionId: string;
  /** How much to give back; null refunds all that remains. */
  readonly amount: AmountInput | null;
}

/** A tenant's backend gives back all or part of one of its payments to the payer. */
export class RefundPayment {
  constructor(
    private readonly ledger: Ledger,
    private readonly holders: WalletHolders,
    private readonly ids: IdGenerator,
    private readonly clock: Clock,
    private readonly unitOfWork: UnitOfWork,
  ) {}

  async execute(c: RefundPaymentCommand): Promise<Transaction> {
    const currency = await tenantCurrency(this.holders, c.principal.tenantId);
    const amount = c.amount === null ? null : amountIn(c.amount, currency);
    const initiatedBy = initiatorOf(c.principal);
    return this.unitOfWork.run(() =>
      this.ledger.refund({
        id: this.ids.next('txn'),
        tenantId: c.principal.tenantId,
        paymentId: c.transactionId,
        amount,
        initiatedBy,
        createdAt: this.clock.now(),
      }),
    );
  }
}
