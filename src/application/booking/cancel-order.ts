import type { AgentPrincipal } from '../../domain/identity/principal.js';
import { decideCancellation, requireCancellable } from '../../domain/booking/cancellation.js';
import type { Order } from '../../domain/booking/order.js';
import type { OrderRepo } from '../../domain/booking/order-repo.port.js';
import { requireOwned } from '../../domain/booking/ownership.js';
import type { Clock } from '../../domain/shared/clock.port.js';
import type { UnitOfWork } from '../unit-of-work.port.js';

/**
 * Cancels one of the caller's orders, refunding the price less the fee the terms set, and gives
 * its seats back. The decision (`decideCancellation`, shared with the preview) is made on the
 * order as locked by storage and on its booking key as read under that lock, so two concurrent
 * cancels cannot both succeed, and a cancel cannot commit after a leak report of the key that it
 * did not see. The one path every cancellation takes.
 */
export class CancelOrder {
  constructor(
    private readonly orders: OrderRepo,
    private readonly clock: Clock,
    private readonly unitOfWork: UnitOfWork,
  ) {}

  async execute(principal: AgentPrincipal, orderId: string): Promise<Order> {
    const { agentId } = principal;
    const now = this.clock.now();
    const cancelled = await this.unitOfWork.run(() =>
      this.orders.cancel(agentId, orderId, (locked, bookingKey) => requireCancellable(decideCancellation(locked, bookingKey, now)), now),
    );
    return requireOwned(cancelled, agentId, 'order-not-found');
  }
}
