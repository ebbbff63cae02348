import type { AgentPrincipal } from '../../domain/identity/principal.js';
import type { Order, OrderStatus } from '../../domain/booking/order.js';
import type { OrderRepo } from '../../domain/booking/order-repo.port.js';
import { pageRequest, type Page, type PageQuery } from '../../domain/shared/page.js';

/** The caller's orders, newest first, one keyset page at a time. */
export class ListOrders {
  constructor(private readonly orders: OrderRepo) {}

  async execute(
    principal: AgentPrincipal,
    input: { status?: OrderStatus | undefined; agentReference?: string | undefined } & PageQuery,
  ): Promise<Page<Order>> {
    const { after, limit } = pageRequest(input);
    return this.orders.listForAgent(principal.agentId, {
      limit,
      ...(input.status === undefined ? {} : { status: input.status }),
      ...(input.agentReference === undefined ? {} : { agentReference: input.agentReference }),
      ...(after === null ? {} : { after }),
    });
  }
}
