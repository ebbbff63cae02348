import type { AgentPrincipal } from '../../domain/identity/principal.js';
import type { Order } from '../../domain/booking/order.js';
import type { OrderRepo } from '../../domain/booking/order-repo.port.js';
import { requireOwned } from '../../domain/booking/ownership.js';

/** One of the caller's own orders. */
export class GetOrder {
  constructor(private readonly orders: OrderRepo) {}

  async execute(principal: AgentPrincipal, orderId: string): Promise<Order> {
    return requireOwned(await this.orders.findForAgent(principal.agentId, orderId), principal.agentId, 'order-not-found');
  }
}
