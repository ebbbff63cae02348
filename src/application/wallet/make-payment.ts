import type { WalletUserPrincipal } from '../../domain/identity/principal.js';
import type { Clock } from '../../domain/shared/clock.port.js';
import type { UnitOfWork } from '../../domain/shared/idempotency.port.js';
import type { IdGenerator } from '../../domain/shared/ids.port.js';
import { amountIn, idempotencyScopeOf, initiatorOf, type AmountInput } from '../../domain/wallet/ledger.js';
import type { Ledger } from '../../domain/wallet/ledger.port.js';
import type { Transaction } from '../../domain/wallet/transaction.js';
import type { WalletHolders } from '../../domain/wallet/wallet-holders.port.js';
import { tenantCurrency } from './wallet-context.js';

export interface MakePaymentCommand {
  readonly principal: WalletUserPrincipal;
  readonly amount: AmountInput;
  readonly reference: string;
  readonly description: string | null;
  readonly idempotencyKey: string | null;
  /** The unit of work of the request's idempotency claim: the write commits with its stored response. */
  readonly unitOfWork?: UnitOfWork | null;
}

/** The person in the token pays the tenant from their balance; `insufficient-funds` when short. */
export class MakePayment {
  constructor(
    private readonly ledger: Ledger,
    private readonly holders: WalletHolders,
    private readonly ids: IdGenerator,
    private readonly clock: Clock,
  ) {}

  async execute(c: MakePaymentCommand): Promise<Transaction> {
    const currency = await tenantCurrency(this.holders, c.principal.tenantId);
    const initiatedBy = initiatorOf(c.principal);
    return this.ledger.pay({
      id: this.ids.next('txn'),
      tenantId: c.principal.tenantId,
      userId: c.principal.userId,
      amount: amountIn(c.amount, currency),
      reference: c.reference,
      description: c.description,
      initiatedBy,
      idempotency: c.idempotencyKey === null ? null : { scope: idempotencyScopeOf(initiatedBy), key: c.idempotencyKey },
      unitOfWork: c.unitOfWork ?? null,
      createdAt: this.clock.now(),
    });
  }
}
