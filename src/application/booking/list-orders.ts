import type { AgentPrincipal } from '../../domain/identity/principal.js';
import type { Order, OrderStatus } from '../../domain/booking/order.js';
import type { OrderRepo } from '../../domain/booking/order-repo.port.js';
import { DomainError } from '../../domain/shared/errors.js';
import { decodeCursor, type Page } from '../../domain/shared/page.js';

/** The caller's orders, newest first, one keyset page at a time. */
export class ListOrders {
  constructor(private readonly orders: OrderRepo) {}

  async execute(
    principal: AgentPrincipal,
    input: { status?: OrderStatus | undefined; agentReference?: string | undefined; cursor?: string | undefined; limit: number },
  ): Promise<Page<Order>> {
    const after = input.cursor === undefined ? undefined : decodeCursor(input.cursor);
    if (after === null) {
      throw new DomainError('invalid-request', {
        message: 'The cursor is not valid.',
        details: {
          errors: [{ path: 'cursor', message: 'is not a cursor this service issued' }],
        },
      });
    }
    return this.orders.listForAgent(principal.agentId, {
      limit: input.limit,
      ...(input.status === undefined ? {} : { status: input.status }),
      ...(input.agentReference === undefined ? {} : { agentReference: input.agentReference }),
      ...(after === undefined ? {} : { after }),
    });
  }
}
