import type { AgentPrincipal } from '../../domain/identity/principal.js';
import { decideCancellation, requireCancellable } from '../../domain/booking/cancellation.js';
import type { Order } from '../../domain/booking/order.js';
import type { OrderRepo } from '../../domain/booking/order-repo.port.js';
import { cancelled } from '../../domain/booking/order-transitions.js';
import type { Clock } from '../../domain/shared/clock.port.js';
import { DomainError } from '../../domain/shared/errors.js';
import type { UnitOfWork } from '../unit-of-work.port.js';
import type { AgentAccounts } from '../../domain/billing/agent-accounts.port.js';
import { changeOrderWithMoney } from './order-money.js';

/**
 * Cancels one of the caller's orders, refunding the price less the fee the terms set (a pending
 * order in full). The decision (`decideCancellation`, shared with the preview) is made on the
 * order as locked by storage and on its booking key as read under that lock, so two concurrent
 * cancels cannot both succeed, and a cancel cannot commit after a leak report of the key that it
 * did not see. The one path an agent's cancellation takes.
 */
export class CancelOrder {
  constructor(
    private readonly orders: OrderRepo,
    private readonly clock: Clock,
    private readonly unitOfWork: UnitOfWork,
    private readonly accounts: Pick<AgentAccounts, 'follow'>,
  ) {}

  async execute(principal: AgentPrincipal, orderId: string): Promise<Order> {
    const now = this.clock.now();
    const changed = await this.unitOfWork.run(() =>
      changeOrderWithMoney(this.orders, this.accounts, {
        scope: { agentId: principal.agentId },
        orderId,
        decide: (locked, bookingKey) =>
          cancelled(locked, now, 'agent', requireCancellable(decideCancellation(locked, bookingKey, now)).refund.amount),
        at: now,
        by: `agent:${principal.agentId}`,
      }),
    );
    if (changed === null) throw new DomainError('order-not-found');
    return changed.order;
  }
}
