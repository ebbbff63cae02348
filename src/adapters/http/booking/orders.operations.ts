import { cancellationView, orderView } from './booking.views.js';
import { NO_STORE, operation, type Operation } from '../operation.js';
import { EXAMPLE_IDEMPOTENCY_KEYS, EXAMPLE_IDS, type DemoExamples } from '../openapi/examples.js';
import { transferQuoteExample } from './quotes.operations.js';
import { BODY_LIMITS, INVALID, INVALID_BODY, KEY_ERRORS, PRODUCT_KEY_ERRORS } from './booking.openapi-common.js';
import {
  cancellationSchema,
  confirmHoldBody,
  idempotencyHeaders,
  orderBody,
  orderPageSchema,
  orderParams,
  orderSchema,
  ordersQuery,
} from './booking.schemas.js';

const contact = { name: 'Malee Srisuk', email: 'malee.srisuk@example.com', phone: '+66 81 234 5678' };
const passengers = [{ name: 'Malee Srisuk' }, { name: 'Anan Srisuk' }];
const AGENT_REFERENCE = 'DTA-2026-0042';

/** The order placed from the airport-transfer example quote. */
export const orderExample = (demo: DemoExamples, cancelled = false) => {
  const quote = transferQuoteExample(demo);
  return {
    id: EXAMPLE_IDS.order,
    status: cancelled ? 'CANCELLED' : 'CONFIRMED',
    product: quote.product,
    quoteId: quote.id,
    channel: quote.channel,
    price: quote.price,
    contact,
    passengers,
    agentReference: AGENT_REFERENCE,
    details: quote.details,
    createdAt: demo.createdAt,
    holdExpiresAt: null,
    confirmationDeadline: null,
    confirmedAt: demo.createdAt,
    operator: { code: 'SIAM-AIRPORT-TRANSFERS', confirmation: 'instant' },
    operatorReference: null,
    rejectionReason: null,
    releaseReason: null,
    cancelledAt: cancelled ? demo.createdAt.replace('T03:00', 'T05:00') : null,
    cancelledBy: cancelled ? 'agent' : null,
    cancellationTerms: { freeCancellationHours: 24, lateCancellationFeeBps: 5000 },
    refund: cancelled ? quote.price : null,
    fee: cancelled ? { amount: 0, currency: quote.price.currency } : null,
    livemode: true,
  };
};

const orderId = { orderId: EXAMPLE_IDS.order };

/** Where orders are placed and listed, and where one is read (a placed order's `Location`). */
const ORDERS_PATH = '/api/v1/orders';
const ORDER_PATH = '/api/v1/orders/{orderId}';

/** Orders: place (with Idempotency-Key), list, read, preview a cancel and cancel, always the caller's own. */
export const orderOperations: readonly Operation[] = [
  operation({
    surface: 'booking',
    method: 'post',
    path: ORDERS_PATH,
    operationId: 'placeOrder',
    summary: 'Book a quote',
    description:
      'Books one of the caller’s quotes at its price: CONFIRMED with an instant operator, PENDING (until `confirmationDeadline`) with an on-request one. With `hold`, the order is ON_HOLD until `holdExpiresAt` instead: its seats or vehicle and its price are held for a confirm or a release, and it is EXPIRED from that moment. A quote books at most once and seats and vehicles never oversell, under any concurrency. The order records the agent, channel, price and the API key that placed it. With an Idempotency-Key, a retry replays the first response (header Idempotent-Replayed: true).',
    tags: ['orders'],
    token: 'api-key',
    scope: 'orders:write',
    request: { body: orderBody, headers: idempotencyHeaders },
    examples: (demo) => ({
      headers: { 'Idempotency-Key': EXAMPLE_IDEMPOTENCY_KEYS.placeOrder },
      body: { quoteId: EXAMPLE_IDS.transferQuote, contact, passengers, agentReference: AGENT_REFERENCE },
      response: orderExample(demo),
    }),
    responses: {
      201: { description: 'The order, CONFIRMED, PENDING or ON_HOLD', schema: orderSchema, headers: { Location: 'The order' } },
      400: {
        description: 'Bad body or Idempotency-Key, or a passenger list that does not match the quote',
        reasons: INVALID_BODY.reasons!,
      },
      ...PRODUCT_KEY_ERRORS,
      404: { description: 'No such quote, or another agent’s', reasons: ['quote-not-found'] },
      409: {
        description:
          'The quote was minted for another channel than the key resolves to now; it is already booked; the trip has no seats left, or the transfer operator no vehicle of the class in the pickup hour; or a request with this Idempotency-Key is still running after a 5 s wait',
        reasons: ['quote-channel-mismatch', 'quote-already-booked', 'sold-out', 'too-late-to-request', 'idempotency-key-in-use'],
      },
      410: { description: 'The quote has expired', reasons: ['quote-expired'] },
      ...BODY_LIMITS,
      422: { description: 'The Idempotency-Key was used with another request', reasons: ['idempotency-key-reused'] },
    },
    idempotency: { scope: 'agent' },
    handler: async ({ body, caller, core, idempotencyKey }) => {
      const order = await core.booking.placeOrder.execute(caller.agent(), {
        ...body,
        ...(idempotencyKey === null ? {} : { idempotencyKey }),
        // The order commits with the key's stored response, in one commit.
      });
      return {
        status: 201,
        headers: { 'Cache-Control': 'no-store', Location: ORDER_PATH.replace('{orderId}', order.id) },
        body: orderView(order),
      };
    },
  }),
  operation({
    surface: 'booking',
    method: 'get',
    path: ORDERS_PATH,
    operationId: 'listOrders',
    summary: 'The caller’s orders, newest first',
    description: 'Filter by `status`, or by `agentReference` (exact match) to find an order whose response was lost.',
    tags: ['orders'],
    token: 'api-key',
    scope: 'orders:read',
    request: { query: ordersQuery },
    examples: (demo) => ({
      query: { status: 'CONFIRMED', agentReference: AGENT_REFERENCE, limit: 20 },
      response: { data: [orderExample(demo)], nextCursor: null },
    }),
    responses: {
      200: { description: 'One keyset page', schema: orderPageSchema },
      400: { description: 'Bad status, agentReference, limit or cursor', reasons: ['invalid-request'] },
      ...KEY_ERRORS,
    },
    handler: async ({ query, caller, core }) => {
      const page = await core.booking.listOrders.execute(caller.agent(), query);
      return { status: 200, headers: NO_STORE, body: { data: page.data.map(orderView), nextCursor: page.nextCursor } };
    },
  }),
  operation({
    surface: 'booking',
    method: 'get',
    path: ORDER_PATH,
    operationId: 'getOrder',
    summary: 'One of the caller’s orders',
    tags: ['orders'],
    token: 'api-key',
    scope: 'orders:read',
    request: { params: orderParams },
    examples: (demo) => ({ params: orderId, response: orderExample(demo) }),
    responses: {
      200: { description: 'The order', schema: orderSchema },
      400: INVALID,
      ...KEY_ERRORS,
      404: { description: 'No such order, or another agent’s', reasons: ['order-not-found'] },
    },
    handler: async ({ params: { orderId }, caller, core }) => {
      const order = await core.booking.getOrder.execute(caller.agent(), orderId);
      return { status: 200, headers: NO_STORE, body: orderView(order) };
    },
  }),
  operation({
    surface: 'booking',
    method: 'post',
    path: `${ORDER_PATH}/confirm`,
    operationId: 'confirmHold',
    summary: 'Confirm one of the caller’s holds',
    description:
      'A confirm received before `holdExpiresAt` always succeeds: the order becomes CONFIRMED (instant operator) or PENDING (on-request). It may bring the `contact` and `passengers` the hold was placed without.',
    tags: ['orders'],
    token: 'api-key',
    scope: 'orders:write',
    request: { params: orderParams, body: confirmHoldBody, headers: idempotencyHeaders },
    examples: (demo) => ({
      params: orderId,
      headers: { 'Idempotency-Key': EXAMPLE_IDEMPOTENCY_KEYS.confirmHold },
      body: { contact, passengers },
      response: orderExample(demo),
    }),
    responses: {
      200: { description: 'The order, CONFIRMED or PENDING', schema: orderSchema },
      400: {
        description: 'Bad body or Idempotency-Key, a missing contact, or passengers that do not match',
        reasons: INVALID_BODY.reasons!,
      },
      ...KEY_ERRORS,
      404: { description: 'No such order, or another agent’s', reasons: ['order-not-found'] },
      409: {
        description:
          'The order is not on hold, the trip is too close for an on-request operator, or a request with this Idempotency-Key is still running',
        reasons: ['order-not-on-hold', 'too-late-to-request', 'idempotency-key-in-use'],
      },
      410: { description: 'The hold expired before the confirm was received', reasons: ['hold-expired'] },
      ...BODY_LIMITS,
      422: { description: 'The Idempotency-Key was used with another request', reasons: ['idempotency-key-reused'] },
    },
    idempotency: { scope: 'agent' },
    handler: async ({ params: { orderId }, body, caller, core }) => {
      const order = await core.booking.confirmHold.execute(caller.agent(), orderId, body);
      return { status: 200, headers: NO_STORE, body: orderView(order) };
    },
  }),
  operation({
    surface: 'booking',
    method: 'post',
    path: `${ORDER_PATH}/release`,
    operationId: 'releaseHold',
    summary: 'Release one of the caller’s holds',
    description: 'The seats or vehicle and the price are free at once. Releasing a released order answers it unchanged.',
    tags: ['orders'],
    token: 'api-key',
    scope: 'orders:write',
    request: { params: orderParams, headers: idempotencyHeaders },
    examples: (demo) => ({
      params: orderId,
      headers: { 'Idempotency-Key': EXAMPLE_IDEMPOTENCY_KEYS.releaseHold },
      response: { ...orderExample(demo), status: 'RELEASED', releaseReason: 'agent', confirmedAt: null },
    }),
    responses: {
      200: { description: 'The order, RELEASED', schema: orderSchema },
      400: INVALID_BODY,
      ...KEY_ERRORS,
      404: { description: 'No such order, or another agent’s', reasons: ['order-not-found'] },
      409: {
        description: 'The order is not on hold (nor released), or a request with this Idempotency-Key is still running',
        reasons: ['order-not-on-hold', 'idempotency-key-in-use'],
      },
      ...BODY_LIMITS,
      422: { description: 'The Idempotency-Key was used with another request', reasons: ['idempotency-key-reused'] },
    },
    jsonBody: true,
    idempotency: { scope: 'agent' },
    handler: async ({ params: { orderId }, caller, core }) => {
      const order = await core.booking.releaseHold.execute(caller.agent(), orderId);
      return { status: 200, headers: NO_STORE, body: orderView(order) };
    },
  }),
  operation({
    surface: 'booking',
    method: 'get',
    path: '/api/v1/orders/{orderId}/cancellation',
    operationId: 'previewCancellation',
    summary: 'What cancelling the order would do now',
    description:
      'The same decision a cancel would make at this moment: whether it would succeed (else the `reason` it would give), the refund and the fee. A cancel is free until `freeUntil` (the order’s `freeCancellationHours` before the pickup or departure, inclusive); after that the fee is `lateCancellationFeeBps` of the price, rounded once to the minor unit (half away from zero); from the start on, nothing is cancelled.',
    tags: ['orders'],
    token: 'api-key',
    scope: 'orders:read',
    request: { params: orderParams },
    examples: (demo) => ({
      params: orderId,
      response: {
        cancellable: true,
        reason: null,
        refund: { amount: demo.transferPrice, currency: 'THB' },
        fee: { amount: 0, currency: 'THB' },
        freeUntil: demo.freeUntil,
        livemode: true,
      },
    }),
    responses: {
      200: { description: 'What a cancel would do now', schema: cancellationSchema },
      400: INVALID,
      ...KEY_ERRORS,
      404: { description: 'No such order, or another agent’s', reasons: ['order-not-found'] },
    },
    handler: async ({ params: { orderId }, caller, core }) => {
      const decision = await core.booking.previewCancellation.execute(caller.agent(), orderId);
      return { status: 200, headers: NO_STORE, body: { ...cancellationView(decision), livemode: caller.agent().livemode } };
    },
  }),
  operation({
    surface: 'booking',
    method: 'post',
    path: '/api/v1/orders/{orderId}/cancel',
    operationId: 'cancelOrder',
    summary: 'Cancel one of the caller’s orders',
    description:
      'Cancels a CONFIRMED or PENDING order (a hold is released instead). Refunds the price less the fee of the order’s cancellation terms (see the cancellation preview; the order then carries `refund` and `fee`; a PENDING order is refunded in full) and gives its seats or vehicle back. An order placed with a key later revoked as leaked cannot be cancelled, whoever asks and with whatever key (keys revoked for rotation or by an operator do not freeze orders). Nothing is cancelled once the pickup or departure has passed.',
    tags: ['orders'],
    token: 'api-key',
    scope: 'orders:cancel',
    request: { params: orderParams, headers: idempotencyHeaders },
    examples: (demo) => ({
      params: orderId,
      headers: { 'Idempotency-Key': EXAMPLE_IDEMPOTENCY_KEYS.cancelOrder },
      response: orderExample(demo, true),
    }),
    responses: {
      200: { description: 'The order, CANCELLED', schema: orderSchema },
      400: INVALID_BODY,
      ...KEY_ERRORS,
      404: { description: 'No such order, or another agent’s', reasons: ['order-not-found'] },
      409: {
        description:
          'Already cancelled; placed with a key revoked as leaked; the pickup or departure has passed; or a request with this Idempotency-Key is still running after a 5 s wait',
        reasons: [
          'order-already-cancelled',
          'order-not-cancellable',
          'booked-with-leaked-key',
          'cancellation-window-closed',
          'idempotency-key-in-use',
        ],
      },
      ...BODY_LIMITS,
      422: { description: 'The Idempotency-Key was used with another request', reasons: ['idempotency-key-reused'] },
    },
    jsonBody: true,
    idempotency: { scope: 'agent' },
    handler: async ({ params: { orderId }, caller, core }) => {
      const order = await core.booking.cancelOrder.execute(caller.agent(), orderId);
      return { status: 200, headers: NO_STORE, body: orderView(order) };
    },
  }),
];
