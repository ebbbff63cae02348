import type { MachinePrincipal } from '../../domain/identity/principal.js';
import type { Clock } from '../../domain/shared/clock.port.js';
import type { IdGenerator } from '../../domain/shared/ids.port.js';
import { amountIn, initiatorOf, type AmountInput } from '../../domain/wallet/ledger.js';
import type { Ledger } from '../../domain/wallet/ledger.port.js';
import type { Transaction } from '../../domain/wallet/transaction.js';
import type { WalletHolders } from '../../domain/wallet/wallet-holders.port.js';
import { requireHolder, tenantCurrency } from './wallet-context.js';
import type { UnitOfWork } from '../unit-of-work.port.js';

export interface TopUpCommand {
  readonly principal: MachinePrincipal;
  readonly userId: string;
  readonly amount: AmountInput;
  readonly reference: string;
}

/** A tenant's backend credits one of its users (money entering the wallet). */
export class TopUp {
  constructor(
    private readonly ledger: Ledger,
    private readonly holders: WalletHolders,
    private readonly ids: IdGenerator,
    private readonly clock: Clock,
    private readonly unitOfWork: UnitOfWork,
  ) {}

  async execute(c: TopUpCommand): Promise<Transaction> {
    const currency = await tenantCurrency(this.holders, c.principal.tenantId);
    await requireHolder(this.holders, c.principal.tenantId, c.userId);
    const initiatedBy = initiatorOf(c.principal);
    return this.unitOfWork.run(() =>
      this.ledger.topUp({
        id: this.ids.next('txn'),
        tenantId: c.principal.tenantId,
        userId: c.userId,
        amount: amountIn(c.amount, currency),
        reference: c.reference,
        initiatedBy,
        createdAt: this.clock.now(),
      }),
    );
  }
}
