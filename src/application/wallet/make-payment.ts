import type { WalletUserPrincipal } from '../../domain/identity/principal.js';
import { amountIn, type AmountInput } from '../../domain/wallet/ledger.js';
import type { Transaction } from '../../domain/wallet/transaction.js';
import { MoneyMovement } from './money-movement.js';

export interface MakePaymentCommand {
  readonly principal: WalletUserPrincipal;
  readonly amount: AmountInput;
  readonly reference: string;
  readonly description: string | null;
}

/** The person in the token pays the tenant from their balance; `insufficient-funds` when short. */
export class MakePayment extends MoneyMovement {
  async execute(c: MakePaymentCommand): Promise<Transaction> {
    const { tenantId, userId } = c.principal;
    const currency = await this.currencyOf(tenantId);
    return this.record(c.principal, (stamp) =>
      this.ledger.pay({
        ...stamp,
        tenantId,
        userId,
        amount: amountIn(c.amount, currency),
        reference: c.reference,
        description: c.description,
      }),
    );
  }
}
