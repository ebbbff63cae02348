import { z } from 'zod';
import { OPERATOR_REJECTION_REASONS } from '../../../domain/booking/order.js';
import type { ProblemReason } from '../../../domain/shared/errors.js';
import { NO_STORE, operation, type Operation, type ResponseSpec } from '../operation.js';
import { EXAMPLE_IDEMPOTENCY_KEYS, EXAMPLE_IDS } from '../openapi/examples.js';
import { HttpProblem } from '../problem.js';
import { agentBillingSchema, prepaidBillingExample } from './account.operations.js';
import { BODY_LIMITS, INVALID_BODY, KEY_ERRORS } from './booking.openapi-common.js';
import { idempotencyHeaders, orderParams, orderSchema } from './booking.schemas.js';
import { orderView } from './booking.views.js';
import { orderExample } from './orders.operations.js';
import { amountInputSchema } from '../wallet/transactions.schemas.js';

/** Where the booking sandbox's helpers for one order live. */
const ORDER_HELPERS = '/api/v1/test-helpers/orders/{orderId}';

const confirmBody = z
  .object({ operatorReference: z.string().trim().min(1).max(100).optional().describe('Default `TEST-` and the order’s id') })
  .meta({ id: 'TestOperatorConfirmRequest' });
const rejectBody = z.object({ reason: z.enum(OPERATOR_REJECTION_REASONS) }).meta({ id: 'TestOperatorRejectRequest' });
const fundBody = z
  .object({
    amount: amountInputSchema.describe('Money `{ amount, currency }` in the channel’s currency, or an integer of its minor units'),
  })
  .meta({ id: 'TestFundAccountRequest', description: 'What the sandbox agent’s own account is credited with' });

/** What a live key gets from every helper: test helpers do not exist for it. */
const LIVE_OR_MISSING = {
  description: 'A live key (test helpers are for sandbox agents only, `pbk_test_…`), or no such order of the caller',
  reasons: ['not-found' as const, 'order-not-found' as const],
};
const noHelper = (): HttpProblem => new HttpProblem(404, 'not-found', 'No such resource.');
const KEY_REUSED = { description: 'The Idempotency-Key was used with another request', reasons: ['idempotency-key-reused' as const] };
const orderId = { orderId: EXAMPLE_IDS.order };

/** What every helper shares: the booking surface, any key of a sandbox agent (a live one: 404 first), an `Idempotency-Key`. */
const HELPER = {
  surface: 'booking',
  method: 'post',
  tags: ['test-helpers'],
  token: 'api-key',
  scope: null,
  sandboxOnly: true,
  idempotency: { scope: 'agent' },
} as const;

/** The answers of a helper: the changed order (or `ok`), and what refuses it (`conflict`: its 409). */
const answers = (
  ok: ResponseSpec,
  conflict: { description: string; reasons: readonly ProblemReason[] },
  missing: ResponseSpec = LIVE_OR_MISSING,
) => ({
  200: ok,
  400: INVALID_BODY,
  ...KEY_ERRORS,
  404: missing,
  409: {
    description: `${conflict.description}, or a request with this Idempotency-Key is still running`,
    reasons: [...conflict.reasons, 'idempotency-key-in-use' as const],
  },
  ...BODY_LIMITS,
  422: KEY_REUSED,
});

/**
 * The booking sandbox's test helpers (CONTRACT §6.7): for a sandbox agent's key only, each the real
 * transition of one of its orders (the operator's answer, or the clock reaching a deadline) with
 * its money and its event, and funding its own account. A live key gets 404 `not-found`.
 */
export const bookingTestHelperOperations: readonly Operation[] = [
  operation({
    ...HELPER,
    path: `${ORDER_HELPERS}/operator-confirm`,
    operationId: 'testOperatorConfirm',
    summary: 'Sandbox: confirm a PENDING order as its operator',
    description:
      'What the operator’s `POST /operator/v1/orders/{orderId}/confirm` does, for one of a sandbox agent’s own orders: CONFIRMED, its price captured, event `order.confirmed`.',
    request: { params: orderParams, body: confirmBody, headers: idempotencyHeaders },
    examples: (demo) => ({
      params: orderId,
      headers: { 'Idempotency-Key': EXAMPLE_IDEMPOTENCY_KEYS.testOperatorConfirm },
      body: { operatorReference: 'SAT-TEST-1' },
      response: { ...orderExample(demo), operatorReference: 'SAT-TEST-1', livemode: false },
    }),
    responses: answers(
      { description: 'The order, CONFIRMED', schema: orderSchema },
      { description: 'The order is not PENDING', reasons: ['order-not-pending'] },
    ),
    handler: async ({ params: { orderId: id }, body, caller, core }) => {
      const order = await core.booking.sandboxOrders.operatorConfirm(caller.agent(), id, body.operatorReference ?? `TEST-${id}`);
      if (order === null) throw noHelper();
      return { status: 200, headers: NO_STORE, body: orderView(order) };
    },
  }),
  operation({
    ...HELPER,
    path: `${ORDER_HELPERS}/operator-reject`,
    operationId: 'testOperatorReject',
    summary: 'Sandbox: reject a PENDING order as its operator',
    description:
      'What the operator’s `POST /operator/v1/orders/{orderId}/reject` does, for one of a sandbox agent’s own orders: REJECTED with the reason, its stock and held price free at once, event `order.rejected`.',
    request: { params: orderParams, body: rejectBody, headers: idempotencyHeaders },
    examples: (demo) => ({
      params: orderId,
      headers: { 'Idempotency-Key': EXAMPLE_IDEMPOTENCY_KEYS.testOperatorReject },
      body: { reason: 'sold-out' },
      response: { ...orderExample(demo), status: 'REJECTED', rejectionReason: 'sold-out', confirmedAt: null, livemode: false },
    }),
    responses: answers(
      { description: 'The order, REJECTED', schema: orderSchema },
      { description: 'The order is not PENDING', reasons: ['order-not-pending'] },
    ),
    handler: async ({ params: { orderId: id }, body, caller, core }) => {
      const order = await core.booking.sandboxOrders.operatorReject(caller.agent(), id, body.reason);
      if (order === null) throw noHelper();
      return { status: 200, headers: NO_STORE, body: orderView(order) };
    },
  }),
  operation({
    ...HELPER,
    path: `${ORDER_HELPERS}/operator-cancel`,
    operationId: 'testOperatorCancel',
    summary: 'Sandbox: cancel a CONFIRMED order as its operator',
    description:
      'What the operator’s `POST /operator/v1/orders/{orderId}/cancel` does, for one of a sandbox agent’s own orders: CANCELLED by the operator with a full refund and no fee, event `order.cancelled` with `cancelledBy: "operator"`.',
    request: { params: orderParams, headers: idempotencyHeaders },
    examples: (demo) => ({
      params: orderId,
      headers: { 'Idempotency-Key': EXAMPLE_IDEMPOTENCY_KEYS.testOperatorCancel },
      response: { ...orderExample(demo, true), cancelledBy: 'operator', livemode: false },
    }),
    responses: answers(
      { description: 'The order, CANCELLED by the operator', schema: orderSchema },
      { description: 'The order is not CONFIRMED', reasons: ['order-not-cancellable', 'order-already-cancelled'] },
    ),
    jsonBody: true,
    handler: async ({ params: { orderId: id }, caller, core }) => {
      const order = await core.booking.sandboxOrders.operatorCancel(caller.agent(), id);
      if (order === null) throw noHelper();
      return { status: 200, headers: NO_STORE, body: orderView(order) };
    },
  }),
  operation({
    ...HELPER,
    path: `${ORDER_HELPERS}/expire`,
    operationId: 'testExpireOrder',
    summary: 'Sandbox: a hold or a pending order reaches its deadline now',
    description:
      'The clock, for one of a sandbox agent’s own orders: a hold becomes EXPIRED (event `order.expired`), a PENDING order REJECTED with `operator-timeout` (event `order.rejected`), as at their deadline; the stock and the held price are free at once.',
    request: { params: orderParams, headers: idempotencyHeaders },
    examples: (demo) => ({
      params: orderId,
      headers: { 'Idempotency-Key': EXAMPLE_IDEMPOTENCY_KEYS.testExpireOrder },
      response: { ...orderExample(demo), status: 'EXPIRED', confirmedAt: null, holdExpiresAt: demo.createdAt, livemode: false },
    }),
    responses: answers(
      { description: 'The order, EXPIRED or REJECTED', schema: orderSchema },
      { description: 'The order is neither on hold nor PENDING', reasons: ['order-has-no-deadline'] },
    ),
    jsonBody: true,
    handler: async ({ params: { orderId: id }, caller, core }) => {
      const order = await core.booking.sandboxOrders.expire(caller.agent(), id);
      if (order === null) throw noHelper();
      return { status: 200, headers: NO_STORE, body: orderView(order) };
    },
  }),
  operation({
    ...HELPER,
    path: '/api/v1/test-helpers/account/fund',
    operationId: 'testFundAccount',
    summary: 'Sandbox: pay money into the caller’s own account',
    description:
      'What `agent fund` records, for a sandbox agent’s own account, in its channel’s currency: a FUNDING line of its statement. Sandbox money never meets live money.',
    request: { body: fundBody, headers: idempotencyHeaders },
    examples: () => ({
      headers: { 'Idempotency-Key': EXAMPLE_IDEMPOTENCY_KEYS.testFundAccount },
      body: { amount: 500_000 },
      response: {
        transactionId: EXAMPLE_IDS.fundingTransaction,
        billing: prepaidBillingExample(500_000),
        livemode: false,
      },
    }),
    responses: {
      200: {
        description: 'The funding transaction and the account after it',
        schema: z
          .object({
            transactionId: z.string(),
            billing: agentBillingSchema,
            livemode: z.boolean().describe('Always false: a sandbox account'),
          })
          .meta({ id: 'TestFundAccountResult' }),
      },
      400: INVALID_BODY,
      ...KEY_ERRORS,
      404: { description: 'A live key (test helpers are for sandbox agents only)', reasons: ['not-found'] },
      409: { description: 'A request with this Idempotency-Key is still running', reasons: ['idempotency-key-in-use'] },
      ...BODY_LIMITS,
      422: {
        description: 'Money in another currency than the channel’s, or a reused Idempotency-Key',
        reasons: ['currency-mismatch', 'idempotency-key-reused'],
      },
    },
    handler: async ({ body, caller, core }) => {
      const agent = caller.agent();
      const funded = await core.booking.sandboxOrders.fund(agent, body.amount);
      if (funded === null) throw noHelper();
      return { status: 200, headers: NO_STORE, body: { ...funded, livemode: agent.livemode } };
    },
  }),
];
