import type { WalletUserPrincipal } from '../../domain/identity/principal.js';
import type { Clock } from '../../domain/shared/clock.port.js';
import type { IdGenerator } from '../../domain/shared/ids.port.js';
import { amountIn, initiatorOf, type AmountInput } from '../../domain/wallet/ledger.js';
import type { Ledger } from '../../domain/wallet/ledger.port.js';
import type { Transaction } from '../../domain/wallet/transaction.js';
import type { WalletHolders } from '../../domain/wallet/wallet-holders.port.js';
import { tenantCurrency } from './wallet-context.js';
import type { UnitOfWork } from '../unit-of-work.port.js';

export interface MakePaymentCommand {
  readonly principal: WalletUserPrincipal;
  readonly amount: AmountInput;
  readonly reference: string;
  readonly description: string | null;
}

/** The person in the token pays the tenant from their balance; `insufficient-funds` when short. */
export class MakePayment {
  constructor(
    private readonly ledger: Ledger,
    private readonly holders: WalletHolders,
    private readonly ids: IdGenerator,
    private readonly clock: Clock,
    private readonly unitOfWork: UnitOfWork,
  ) {}

  async execute(c: MakePaymentCommand): Promise<Transaction> {
    const currency = await tenantCurrency(this.holders, c.principal.tenantId);
    const initiatedBy = initiatorOf(c.principal);
    return this.unitOfWork.run(() =>
      this.ledger.pay({
        id: this.ids.next('txn'),
        tenantId: c.principal.tenantId,
        userId: c.principal.userId,
        amount: amountIn(c.amount, currency),
        reference: c.reference,
        description: c.description,
        initiatedBy,
        createdAt: this.clock.now(),
      }),
    );
  }
}
