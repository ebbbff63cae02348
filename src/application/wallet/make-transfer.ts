import type { WalletUserPrincipal } from '../../domain/identity/principal.js';
import { amountIn, requireOtherRecipient, type AmountInput } from '../../domain/wallet/ledger.js';
import type { Transaction } from '../../domain/wallet/transaction.js';
import { MoneyMovement } from './money-movement.js';
import { requireHolder } from './wallet-caller.js';

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
export class MakeTransfer extends MoneyMovement {
  async execute(c: MakeTransferCommand): Promise<Transaction> {
    const { tenantId, userId } = c.principal;
    const amount = amountIn(c.amount, await this.currencyOf(tenantId));
    await requireHolder(this.holders, tenantId, c.toUserId);
    requireOtherRecipient(userId, c.toUserId);
    return this.record(c.principal, (stamp) =>
      this.ledger.transfer({ ...stamp, tenantId, userId, toUserId: c.toUserId, amount, note: c.note }),
    );
  }
}
