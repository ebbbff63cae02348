import type { MachinePrincipal } from '../../domain/identity/principal.js';
import type { Clock } from '../../domain/shared/clock.port.js';
import type { UnitOfWork } from '../../domain/shared/idempotency.port.js';
import type { IdGenerator } from '../../domain/shared/ids.port.js';
import { amountIn, idempotencyScopeOf, initiatorOf, type AmountInput } from '../../domain/wallet/ledger.js';
import type { Ledger } from '../../domain/wallet/ledger.port.js';
import type { Transaction } from '../../domain/wallet/transaction.js';
import type { WalletHolders } from '../../domain/wallet/wallet-holders.port.js';
import { requireHolder, tenantCurrency } from './wallet-context.js';

export interface TopUpCommand {
  readonly principal: MachinePrincipal;
  readonly userId: string;
  readonly amount: AmountInput;
  readonly reference: string;
  readonly idempotencyKey: string | null;
  /** The unit of work of the request's idempotency claim: the write commits with its stored response. */
  readonly unitOfWork?: UnitOfWork | null;
}

/** A tenant's backend credits one of its users (money entering the wallet). */
export class TopUp {
  constructor(
    private readonly ledger: Ledger,
    private readonly holders: WalletHolders,
    private readonly ids: IdGenerator,
    private readonly clock: Clock,
  ) {}

  async execute(c: TopUpCommand): Promise<Transaction> {
    const currency = await tenantCurrency(this.holders, c.principal.tenantId);
    await requireHolder(this.holders, c.principal.tenantId, c.userId);
    const initiatedBy = initiatorOf(c.principal);
    return this.ledger.topUp({
      id: this.ids.next('txn'),
      tenantId: c.principal.tenantId,
      userId: c.userId,
      amount: amountIn(c.amount, currency),
      reference: c.reference,
      initiatedBy,
      idempotency: c.idempotencyKey === null ? null : { scope: idempotencyScopeOf(initiatedBy), key: c.idempotencyKey },
      unitOfWork: c.unitOfWork ?? null,
      createdAt: this.clock.now(),
    });
  }
}
