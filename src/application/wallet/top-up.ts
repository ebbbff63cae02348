import type { MachinePrincipal } from '../../domain/identity/principal.js';
import { amountIn, type AmountInput } from '../../domain/wallet/ledger.js';
import type { Transaction } from '../../domain/wallet/transaction.js';
import { MoneyMovement } from './money-movement.js';
import { requireHolder } from './wallet-caller.js';

export interface TopUpCommand {
  readonly principal: MachinePrincipal;
  readonly userId: string;
  readonly amount: AmountInput;
  readonly reference: string;
}

/** A tenant's backend credits one of its users (money entering the wallet). */
export class TopUp extends MoneyMovement {
  async execute(c: TopUpCommand): Promise<Transaction> {
    const { tenantId } = c.principal;
    const currency = await this.currencyOf(tenantId);
    await requireHolder(this.holders, tenantId, c.userId);
    return this.record(c.principal, (stamp) =>
      this.ledger.topUp({
        ...stamp,
        tenantId,
        userId: c.userId,
        amount: amountIn(c.amount, currency),
        reference: c.reference,
      }),
    );
  }
}
