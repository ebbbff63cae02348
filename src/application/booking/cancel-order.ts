import type { AgentPrincipal } from '../../domain/identity/principal.js';
import { decideCancellation, requireCancellable } from '../../domain/booking/cancellation.js';
import type { Order } from '../../domain/booking/order.js';
import { cancelled } from '../../domain/booking/order-transitions.js';
import { OwnOrderChange } from './order-money.js';

/**
 * Cancels one of the caller's orders, refunding the price less the fee the terms set (a pending
 * order in full). The decision (`decideCancellation`, shared with the preview) is made on the
 * order as locked by storage and on its booking key as read under that lock, so two concurrent
 * cancels cannot both succeed, and a cancel cannot commit after a leak report of the key that it
 * did not see. The one path an agent's cancellation takes.
 */
export class CancelOrder extends OwnOrderChange {
  async execute(principal: AgentPrincipal, orderId: string): Promise<Order> {
    const now = this.clock.now();
    return this.change(principal, orderId, now, (locked, bookingKey) =>
      cancelled(locked, now, 'agent', requireCancellable(decideCancellation(locked, bookingKey, now)).refund.amount),
    );
  }
}
