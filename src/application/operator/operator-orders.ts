import type { Operator } from '../../domain/catalogue/operator.js';
import type { OPERATOR_REJECTION_REASONS, Order, OrderStatus } from '../../domain/booking/order.js';
import type { Cursor, Page } from '../../domain/shared/page.js';

/**
 * What the operator surface (`/operator/v1/`) calls: an operator's own orders, listed, read,
 * confirmed, rejected and cancelled. Every order answered is as true now (deadlines applied);
 * another operator's order is `order-not-found`.
 */
export interface OperatorOrderUseCases {
  /** `PENDING` listed by `confirmationDeadline` ascending, other statuses newest first. */
  readonly list: {
    execute(operator: Operator, query: { status?: OrderStatus; after?: Cursor; limit: number }): Promise<Page<Order>>;
  };
  readonly get: { execute(operator: Operator, orderId: string): Promise<Order> };
  /** Only a `PENDING` order (else `order-not-pending`). */
  readonly confirm: { execute(operator: Operator, orderId: string, operatorReference: string): Promise<Order> };
  /** Only a `PENDING` order; its stock and funds are released. */
  readonly reject: {
    execute(operator: Operator, orderId: string, reason: (typeof OPERATOR_REJECTION_REASONS)[number]): Promise<Order>;
  };
  /** Only a `CONFIRMED` order, refunded in full with no fee. */
  readonly cancel: { execute(operator: Operator, orderId: string, reason: string): Promise<Order> };
  /** The names of the agents of the given ids (the operator sees who booked, nothing more). */
  readonly agentNames: { execute(agentIds: readonly string[]): Promise<Map<string, string>> };
}
