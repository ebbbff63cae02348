import type { AgentAccounts } from '../../domain/billing/agent-accounts.port.js';
import type { Order, OrderStatus } from '../../domain/booking/order.js';
import type { OrderDecision, OrderRepo, OrderScope } from '../../domain/booking/order-repo.port.js';
import type { AgentPrincipal } from '../../domain/identity/principal.js';
import type { Clock } from '../../domain/shared/clock.port.js';
import { DomainError } from '../../domain/shared/errors.js';
import type { UnitOfWork } from '../unit-of-work.port.js';

/** A change of one order: which orders may be changed, which one, what becomes of it, when and by whom. */
export interface OrderChange {
  readonly scope: OrderScope;
  readonly orderId: string;
  readonly decide: OrderDecision;
  readonly at: Date;
  readonly by: string;
}

/** What a use case changing an order works through. */
export interface OrderChangePorts {
  readonly orders: Pick<OrderRepo, 'change'>;
  readonly accounts: Pick<AgentAccounts, 'follow'>;
  readonly unitOfWork: UnitOfWork;
}

/**
 * Changes an order and moves its money with it (CONTRACT §6.4): the order's change, then what
 * its money does from the status it had (as true under its lock) to the new one, both in the
 * caller's unit of work, so they commit together or not at all. `by` names who changed it.
 */
export async function changeOrderWithMoney(
  orders: Pick<OrderRepo, 'change'>,
  accounts: Pick<AgentAccounts, 'follow'>,
  change: OrderChange,
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

/**
 * `changeOrderWithMoney` in a unit of work of its own, answering the order as the change left it;
 * an order outside the scope, like one that does not exist, is `order-not-found`.
 */
export async function changeOrder(ports: OrderChangePorts, change: OrderChange): Promise<Order> {
  const changed = await ports.unitOfWork.run(() => changeOrderWithMoney(ports.orders, ports.accounts, change));
  if (changed === null) throw new DomainError('order-not-found');
  return changed.order;
}

/**
 * What the agent's own changes of an order (confirm or release a hold, cancel) share, written
 * once: their stores, and the change scoped to the caller's orders (another agent's is
 * `order-not-found`) with the ledger naming the agent. Each keeps its own decision.
 */
export abstract class OwnOrderChange {
  constructor(
    private readonly orders: OrderRepo,
    protected readonly clock: Clock,
    private readonly unitOfWork: UnitOfWork,
    private readonly accounts: Pick<AgentAccounts, 'follow'>,
  ) {}

  /** Changes the caller's order `orderId` as `decide` says, at `at`. */
  protected change(principal: AgentPrincipal, orderId: string, at: Date, decide: OrderDecision): Promise<Order> {
    return changeOrder(
      { orders: this.orders, accounts: this.accounts, unitOfWork: this.unitOfWork },
      { scope: { agentId: principal.agentId }, orderId, decide, at, by: `agent:${principal.agentId}` },
    );
  }
}
