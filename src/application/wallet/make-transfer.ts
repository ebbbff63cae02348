import type { WalletUserPrincipal } from '../../domain/identity/principal.js';
import type { Clock } from '../../domain/shared/clock.port.js';
import type { IdGenerator } from '../../domain/shared/ids.port.js';
import { amountIn, initiatorOf, requireOtherRecipient, type AmountInput } from '../../domain/wallet/ledger.js';
import type { Ledger } from '../../domain/wallet/ledger.port.js';
import type { Transaction } from '../../domain/wallet/transaction.js';
import type { WalletHolders } from '../../domain/wallet/wallet-holders.port.js';
import { requireHolder, tenantCurrency } from './wallet-context.js';
import type { UnitOfWork } from '../unit-of-work.port.js';

export interface MakeTransferCommand {
  readonly principal: WalletUserPrincipal;
  readonly toUserId: string;
  readonly amount: AmountInput;
  readonly note: string | null;
}

/**
 * The person in the token sends money to another user of the same tenant. Another tenant's user
 * is `user-not-found`, exactly like an unknown one; sending to oneself is `same-user-transfer`.
 */
export class MakeTransfer {
  constructor(
    private readonly ledger: Ledger,
    private readonly holders: WalletHolders,
    private readonly ids: IdGenerator,
    private readonly clock: Clock,
    private readonly unitOfWork: UnitOfWork,
  ) {}

  async execute(c: MakeTransferCommand): Promise<Transaction> {
    const currency = await tenantCurrency(this.holders, c.principal.tenantId);
    const amount = amountIn(c.amount, currency);
    await requireHolder(this.holders, c.principal.tenantId, c.toUserId);
    requireOtherRecipient(c.principal.userId, c.toUserId);
    const initiatedBy = initiatorOf(c.principal);
    return this.unitOfWork.run(() =>
      this.ledger.transfer({
        id: this.ids.next('txn'),
        tenantId: c.principal.tenantId,
        userId: c.principal.userId,
        toUserId: c.toUserId,
        amount,
        note: c.note,
        initiatedBy,
        createdAt: this.clock.now(),
      }),
    );
  }
}
