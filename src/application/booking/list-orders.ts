import type { AgentPrincipal } from '../../domain/identity/principal.js';
import { orderAt, type Order, type OrderStatus } from '../../domain/booking/order.js';
import type { Clock } from '../../domain/shared/clock.port.js';
import type { OrderRepo } from '../../domain/booking/order-repo.port.js';
import { pageRequest, type Page, type PageQuery } from '../../domain/shared/page.js';

/** The caller's orders as they are now, newest first, one keyset page at a time. */
export class ListOrders {
  constructor(
    private readonly orders: OrderRepo,
    private readonly clock: Clock,
  ) {}

  async execute(
    principal: AgentPrincipal,
    input: { status?: OrderStatus | undefined; agentReference?: string | undefined } & PageQuery,
  ): Promise<Page<Order>> {
    const { after, limit } = pageRequest(input);
    const now = this.clock.now();
    const page = await this.orders.list(
      { agentId: principal.agentId },
      {
        limit,
        now,
        ...(input.status === undefined ? {} : { status: input.status }),
        ...(input.agentReference === undefined ? {} : { agentReference: input.agentReference }),
        ...(after === null ? {} : { after }),
      },
    );
    return { ...page, data: page.data.map((o) => orderAt(o, now)) };
  }
}
