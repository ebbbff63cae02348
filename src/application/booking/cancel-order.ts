import type { AgentDirectory } from '../../domain/identity/agent-directory.port.js';
import type { AgentPrincipal } from '../../domain/identity/principal.js';
import { decideCancellation, requireCancellable } from '../../domain/booking/cancellation.js';
import type { Order } from '../../domain/booking/order.js';
import type { OrderRepo } from '../../domain/booking/order-repo.port.js';
import { requireOwned } from '../../domain/booking/ownership.js';
import type { Clock } from '../../domain/shared/clock.port.js';

/**
 * Cancels one of the caller's orders, refunding the price less the fee the terms set, and gives
 * its seats back. The decision (`decideCancellation`, shared with the preview) is made on the
 * order as locked by storage, so two concurrent cancels cannot both succeed. The one path every
 * cancellation takes.
 */
export class CancelOrder {
  constructor(
    private readonly orders: OrderRepo,
    private readonly directory: AgentDirectory,
    private readonly clock: Clock,
  ) {}

  async execute(principal: AgentPrincipal, orderId: string): Promise<Order> {
    const { agentId } = principal;
    const order = requireOwned(await this.orders.findForAgent(agentId, orderId), agentId, 'order-not-found');
    const bookingKey = await this.directory.findKey(order.keyId);
    const now = this.clock.now();
    const cancelled = await this.orders.cancel(
      agentId,
      orderId,
      (locked) => requireCancellable(decideCancellation(locked, bookingKey, now)),
      now,
    );
    return requireOwned(cancelled, agentId, 'order-not-found');
  }
}
