import type { AgentPrincipal } from '../../domain/identity/principal.js';
import { orderAt, type Order } from '../../domain/booking/order.js';
import type { OrderRepo } from '../../domain/booking/order-repo.port.js';
import type { Clock } from '../../domain/shared/clock.port.js';
import { DomainError } from '../../domain/shared/errors.js';

/** One of the caller's own orders, as it is now (a lapsed hold is EXPIRED). */
export class GetOrder {
  constructor(
    private readonly orders: OrderRepo,
    private readonly clock: Clock,
  ) {}

  async execute(principal: AgentPrincipal, orderId: string): Promise<Order> {
    const order = await this.orders.find({ agentId: principal.agentId }, orderId);
    if (order === null) throw new DomainError('order-not-found');
    return orderAt(order, this.clock.now());
  }
}
