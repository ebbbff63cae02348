import type { AgentAccounts } from '../../domain/billing/agent-accounts.port.js';
import type { Order, OrderStatus } from '../../domain/booking/order.js';
import type { OrderDecision, OrderRepo, OrderScope } from '../../domain/booking/order-repo.port.js';

/**
 * Changes an order and moves its money with it (CONTRACT §6.4): the order's change, then what
 * its money does from the status it had (as true under its lock) to the new one, both in the
 * caller's unit of work, so they commit together or not at all. `by` names who changed it.
 */
export async function changeOrderWithMoney(
  orders: Pick<OrderRepo, 'change'>,
  accounts: Pick<AgentAccounts, 'follow'>,
  change: { scope: OrderScope; orderId: string; decide: OrderDecision; at: Date; by: string },
): Promise<{ order: Order; changed: boolean } | null> {
  let previous: OrderStatus | null = null;
  const changed = await orders.change(
    change.scope,
    change.orderId,
    (order, key) => {
      previous = order.status;
      return change.decide(order, key);
    },
    change.at,
  );
  if (changed !== null && changed.changed) await accounts.follow(previous, changed.order, change.at, change.by);
  return changed;
}
