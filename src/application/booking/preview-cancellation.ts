import type { AgentDirectory } from '../../domain/identity/agent-directory.port.js';
import type { AgentPrincipal } from '../../domain/identity/principal.js';
import { decideCancellation, type CancellationDecision } from '../../domain/booking/cancellation.js';
import { orderAt } from '../../domain/booking/order.js';
import type { OrderRepo } from '../../domain/booking/order-repo.port.js';
import { requireOwned } from '../../domain/booking/ownership.js';
import type { Clock } from '../../domain/shared/clock.port.js';

/**
 * What cancelling one of the caller's orders would do now: the same decision the cancel makes
 * (`decideCancellation`), on the order as stored and the same clock.
 */
export class PreviewCancellation {
  constructor(
    private readonly orders: OrderRepo,
    private readonly directory: AgentDirectory,
    private readonly clock: Clock,
  ) {}

  async execute(principal: AgentPrincipal, orderId: string): Promise<CancellationDecision> {
    const { agentId } = principal;
    const order = requireOwned(await this.orders.find({ agentId }, orderId), agentId, 'order-not-found');
    const bookingKey = await this.directory.findKey(order.keyId);
    const now = this.clock.now();
    return decideCancellation(orderAt(order, now), bookingKey, now);
  }
}
