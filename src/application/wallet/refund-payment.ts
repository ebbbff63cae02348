import type { MachinePrincipal } from '../../domain/identity/principal.js';
import { amountIn, type AmountInput } from '../../domain/wallet/ledger.js';
import type { Transaction } from '../../domain/wallet/transaction.js';
import { MoneyMovement } from './money-movement.js';

export interface RefundPaymentCommand {
  readonly principal: MachinePrincipal;
  readonly transactionId: string;
  /** How much to give back; null refunds all that remains. */
  readonly amount: AmountInput | null;
}

/** A tenant's backend gives back all or part of one of its payments to the payer. */
export class RefundPayment extends MoneyMovement {
  async execute(c: RefundPaymentCommand): Promise<Transaction> {
    const { tenantId } = c.principal;
    const currency = await this.currencyOf(tenantId);
    const amount = c.amount === null ? null : amountIn(c.amount, currency);
    return this.record(c.principal, (stamp) => this.ledger.refund({ ...stamp, tenantId, paymentId: c.transactionId, amount }));
  }
}
