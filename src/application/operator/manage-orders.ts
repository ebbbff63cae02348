import type { Operator } from '../../domain/catalogue/operator.js';
import { orderAt, type Order, type OrderStatus, type OPERATOR_REJECTION_REASONS } from '../../domain/booking/order.js';
import type { OrderRepo } from '../../domain/booking/order-repo.port.js';
import { operatorCancel, operatorConfirm, operatorReject } from '../../domain/booking/order-transitions.js';
import type { AgentDirectory } from '../../domain/identity/agent-directory.port.js';
import type { Clock } from '../../domain/shared/clock.port.js';
import { DomainError } from '../../domain/shared/errors.js';
import { pageRequest, type Page, type PageQuery } from '../../domain/shared/page.js';
import type { UnitOfWork } from '../unit-of-work.port.js';
import type { AgentAccounts } from '../../domain/billing/agent-accounts.port.js';
import { changeOrder } from '../booking/order-money.js';

/**
 * What an operator does with the orders of its own products (CONTRACT §6.3). Another operator's
 * order is `order-not-found`, exactly like one that does not exist; every order is shown as it is
 * now (a pending order past its deadline is REJECTED).
 */
export class OperatorOrders {
  constructor(
    private readonly orders: OrderRepo,
    private readonly agents: Pick<AgentDirectory, 'findAgent'>,
    private readonly clock: Clock,
    private readonly unitOfWork: UnitOfWork,
    private readonly accounts: Pick<AgentAccounts, 'follow'>,
  ) {}

  /** Its orders, newest first; PENDING ones by deadline, soonest first. */
  async list(operator: Operator, input: { status?: OrderStatus | undefined } & PageQuery): Promise<Page<Order>> {
    const { after, limit } = pageRequest(input);
    const now = this.clock.now();
    const page = await this.orders.list(
      { operatorCode: operator.code, livemode: operator.livemode },
      { limit, now, ...(input.status === undefined ? {} : { status: input.status }), ...(after === null ? {} : { after }) },
    );
    return { ...page, data: page.data.map((o) => orderAt(o, now)) };
  }

  async get(operator: Operator, orderId: string): Promise<Order> {
    const order = await this.orders.find({ operatorCode: operator.code, livemode: operator.livemode }, orderId);
    if (order === null) throw new DomainError('order-not-found');
    return orderAt(order, this.clock.now());
  }

  /** Confirms a PENDING order with the operator's own reference. */
  confirm(operator: Operator, orderId: string, operatorReference: string): Promise<Order> {
    return this.change(operator, orderId, (order, at) => operatorConfirm(order, operatorReference, at));
  }

  /** Refuses a PENDING order; its stock and price are free at once. */
  reject(operator: Operator, orderId: string, reason: (typeof OPERATOR_REJECTION_REASONS)[number]): Promise<Order> {
    return this.change(operator, orderId, (order) => operatorReject(order, reason));
  }

  /** Cancels a CONFIRMED order with a full refund and no fee. */
  cancel(operator: Operator, orderId: string): Promise<Order> {
    return this.change(operator, orderId, (order, at) => operatorCancel(order, at));
  }

  /** The names of the agents of the orders shown (an operator sees who booked, not on what terms). */
  async agentNames(agentIds: readonly string[]): Promise<Map<string, string>> {
    const names = new Map<string, string>();
    for (const id of new Set(agentIds)) {
      const agent = await this.agents.findAgent(id);
      if (agent !== null) names.set(id, agent.name);
    }
    return names;
  }

  private async change(operator: Operator, orderId: string, decide: (order: Order, at: Date) => Order): Promise<Order> {
    const now = this.clock.now();
    return changeOrder(
      { orders: this.orders, accounts: this.accounts, unitOfWork: this.unitOfWork },
      {
        scope: { operatorCode: operator.code, livemode: operator.livemode },
        orderId,
        decide: (order) => decide(order, now),
        at: now,
        by: `operator:${operator.code}`,
      },
    );
  }
}
