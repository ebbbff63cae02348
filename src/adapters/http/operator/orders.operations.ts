import { z } from 'zod';
import { OPERATOR_REJECTION_REASONS, ORDER_STATUSES, type Order } from '../../../domain/booking/order.js';
import type { Page } from '../../../domain/shared/page.js';
import { NO_STORE, operation, type Operation, type OperationContext } from '../operation.js';
import { BODY_LIMITS, INVALID, INVALID_BODY } from '../booking/booking.openapi-common.js';
import { busDetails, idempotencyHeaders, orderParams, timestamp, transferDetails } from '../booking/booking.schemas.js';
import { pageQueryFields } from '../page.schemas.js';
import { EXAMPLE_IDEMPOTENCY_KEYS, EXAMPLE_IDS } from '../openapi/examples.js';
import { operatorOrderView } from './operator.views.js';

/** Where an operator's orders are listed, and where one is read and answered. */
const ORDERS_PATH = '/operator/v1/orders';
const ORDER_PATH = `${ORDERS_PATH}/{orderId}`;

const person = z.object({ name: z.string() });
const operatorOrderOf = <P extends 'airport-transfer' | 'express-bus', D extends z.ZodType>(product: P, details: D) =>
  z.object({
    id: z.string(),
    status: z.enum(ORDER_STATUSES),
    product: z.literal(product),
    details,
    passengers: z.array(person),
    contact: z.object({ name: z.string(), email: z.string(), phone: z.string().nullable() }).nullable(),
    agentName: z.string().describe('The travel agent that booked it'),
    createdAt: timestamp(),
    confirmationDeadline: timestamp().nullable().describe('Until when a PENDING order may be confirmed'),
    operatorReference: z.string().nullable(),
    livemode: z.boolean().describe('False for a sandbox order (only a sandbox operator sees one)'),
  });
const operatorOrderSchema = z
  .discriminatedUnion('product', [
    operatorOrderOf('airport-transfer', transferDetails).meta({ id: 'OperatorTransferOrder' }),
    operatorOrderOf('express-bus', busDetails.omit({ unitPrice: true })).meta({ id: 'OperatorBusOrder' }),
  ])
  .meta({
    id: 'OperatorOrder',
    description: 'What the operator needs to run the trip; never the agent’s price, channel, key or reference',
  });
const operatorOrderPageSchema = z
  .object({ data: z.array(operatorOrderSchema), nextCursor: z.string().nullable() })
  .meta({ id: 'OperatorOrderPage' });

const ordersQuery = z.object({
  status: z.enum(ORDER_STATUSES).optional().describe('The status as it is now; PENDING lists by deadline, soonest first'),
  ...pageQueryFields,
});
const confirmBody = z.object({ operatorReference: z.string().trim().min(1).max(100) }).meta({ id: 'OperatorConfirmRequest' });
const rejectBody = z.object({ reason: z.enum(OPERATOR_REJECTION_REASONS) }).meta({ id: 'OperatorRejectRequest' });
const cancelBody = z.object({ reason: z.string().trim().min(1).max(200) }).meta({ id: 'OperatorCancelRequest' });

const NOT_FOUND = { description: 'No such order, or another operator’s', reasons: ['order-not-found' as const] };
const orderId = { orderId: EXAMPLE_IDS.order };
const example = (demo: { createdAt: string }) => ({
  id: EXAMPLE_IDS.order,
  status: 'PENDING',
  product: 'airport-transfer',
  details: {
    fromLocationId: 'loc_bkk',
    toLocationId: 'loc_bkk_h_riverside',
    pickupAt: demo.createdAt,
    passengers: 2,
    vehicleClass: 'sedan',
    durationMinutes: 45,
  },
  passengers: [{ name: 'Malee Srisuk' }, { name: 'Anan Srisuk' }],
  contact: { name: 'Malee Srisuk', email: 'malee.srisuk@example.com', phone: null },
  agentName: 'Demo Travel Agency',
  createdAt: demo.createdAt,
  confirmationDeadline: demo.createdAt,
  operatorReference: null,
  livemode: true,
});

/** The operator's view of each order, with the names of the agents that booked them. */
const viewsOf = async (core: OperationContext['core'], orders: readonly Order[]) => {
  const names = await core.booking.operatorOrders.agentNames(orders.map((o) => o.agentId));
  return orders.map((o) => operatorOrderView(o, names.get(o.agentId) ?? ''));
};
const answerOf = async (core: OperationContext['core'], order: Order) => ({
  status: 200,
  headers: NO_STORE,
  body: (await viewsOf(core, [order]))[0],
});
const pageAnswer = async (core: OperationContext['core'], page: Page<Order>) => ({
  status: 200,
  headers: NO_STORE,
  body: { data: await viewsOf(core, page.data), nextCursor: page.nextCursor },
});

const write = {
  surface: 'operator',
  tags: ['operator-orders'],
  token: 'operator-key',
  idempotency: { scope: 'operator' },
} as const;

/** The operator surface (CONTRACT §6.3): an operator's own orders, listed, read, confirmed, rejected and cancelled. */
export const operatorOrderOperations: readonly Operation[] = [
  operation({
    surface: 'operator',
    method: 'get',
    path: ORDERS_PATH,
    operationId: 'listOperatorOrders',
    summary: 'The operator’s orders',
    description:
      'Only orders of the operator’s own products, newest first; with `status=PENDING`, those waiting for it, soonest deadline first.',
    tags: ['operator-orders'],
    token: 'operator-key',
    request: { query: ordersQuery },
    examples: (demo) => ({ query: { status: 'PENDING', limit: 20 }, response: { data: [example(demo)], nextCursor: null } }),
    responses: {
      200: { description: 'One keyset page', schema: operatorOrderPageSchema },
      400: { description: 'Bad status, limit or cursor', reasons: ['invalid-request'] },
    },
    handler: async ({ query, caller, core }) => pageAnswer(core, await core.booking.operatorOrders.list(caller.operator(), query)),
  }),
  operation({
    surface: 'operator',
    method: 'get',
    path: ORDER_PATH,
    operationId: 'getOperatorOrder',
    summary: 'One of the operator’s orders',
    tags: ['operator-orders'],
    token: 'operator-key',
    request: { params: orderParams },
    examples: (demo) => ({ params: orderId, response: example(demo) }),
    responses: { 200: { description: 'The order', schema: operatorOrderSchema }, 400: INVALID, 404: NOT_FOUND },
    handler: async ({ params, caller, core }) => answerOf(core, await core.booking.operatorOrders.get(caller.operator(), params.orderId)),
  }),
  operation({
    ...write,
    method: 'post',
    path: `${ORDER_PATH}/confirm`,
    operationId: 'confirmOperatorOrder',
    summary: 'Confirm a pending order',
    description: 'With the operator’s own reference, which the agent then sees. Only a PENDING order.',
    request: { params: orderParams, body: confirmBody, headers: idempotencyHeaders },
    examples: (demo) => ({
      params: orderId,
      headers: { 'Idempotency-Key': EXAMPLE_IDEMPOTENCY_KEYS.confirmOperatorOrder },
      body: { operatorReference: 'SAT-20417' },
      response: { ...example(demo), status: 'CONFIRMED' },
    }),
    responses: {
      200: { description: 'The order, CONFIRMED', schema: operatorOrderSchema },
      400: INVALID_BODY,
      404: NOT_FOUND,
      409: { description: 'The order is not PENDING', reasons: ['order-not-pending'] },
      ...BODY_LIMITS,
    },
    handler: async ({ params, body, caller, core }) =>
      answerOf(core, await core.booking.operatorOrders.confirm(caller.operator(), params.orderId, body.operatorReference)),
  }),
  operation({
    ...write,
    method: 'post',
    path: `${ORDER_PATH}/reject`,
    operationId: 'rejectOperatorOrder',
    summary: 'Refuse a pending order',
    description: 'Its seats or vehicle and the agent’s price are released at once.',
    request: { params: orderParams, body: rejectBody, headers: idempotencyHeaders },
    examples: (demo) => ({
      params: orderId,
      headers: { 'Idempotency-Key': EXAMPLE_IDEMPOTENCY_KEYS.rejectOperatorOrder },
      body: { reason: 'operator-declined' },
      response: { ...example(demo), status: 'REJECTED' },
    }),
    responses: {
      200: { description: 'The order, REJECTED', schema: operatorOrderSchema },
      400: INVALID_BODY,
      404: NOT_FOUND,
      409: { description: 'The order is not PENDING', reasons: ['order-not-pending'] },
      ...BODY_LIMITS,
    },
    handler: async ({ params, body, caller, core }) =>
      answerOf(core, await core.booking.operatorOrders.reject(caller.operator(), params.orderId, body.reason)),
  }),
  operation({
    ...write,
    method: 'post',
    path: `${ORDER_PATH}/cancel`,
    operationId: 'cancelOperatorOrder',
    summary: 'Cancel a confirmed order',
    description: 'The agent is refunded in full, with no fee; the agent is told by `order.cancelled` with `cancelledBy: "operator"`.',
    request: { params: orderParams, body: cancelBody, headers: idempotencyHeaders },
    examples: (demo) => ({
      params: orderId,
      headers: { 'Idempotency-Key': EXAMPLE_IDEMPOTENCY_KEYS.cancelOperatorOrder },
      body: { reason: 'Vehicle breakdown' },
      response: { ...example(demo), status: 'CANCELLED' },
    }),
    responses: {
      200: { description: 'The order, CANCELLED', schema: operatorOrderSchema },
      400: INVALID_BODY,
      404: NOT_FOUND,
      409: { description: 'The order is not CONFIRMED', reasons: ['order-not-cancellable', 'order-already-cancelled'] },
      ...BODY_LIMITS,
    },
    handler: async ({ params, caller, core }) =>
      answerOf(core, await core.booking.operatorOrders.cancel(caller.operator(), params.orderId)),
  }),
];
