import { ORDER_STATUSES, type ORDER_EVENT_TYPES } from '../../../domain/booking/order.js';
import { z } from 'zod';
import { requestOrigin } from '../client-address.js';
import { NO_STORE, operation, type Caller, type Operation, type ResponseSpec } from '../operation.js';
import type { WebhookCaller } from '../../../domain/webhooks/owner.js';
import { EXAMPLE_IDEMPOTENCY_KEYS, EXAMPLE_IDS, type DemoExamples } from '../openapi/examples.js';
import { KEY_ERRORS } from '../booking/booking.openapi-common.js';
import {
  agentEndpointBody,
  agentTestBody,
  tenantTestBody,
  createdEndpointSchema,
  deliveryPageSchema,
  deliveryParams,
  endpointPageSchema,
  endpointParams,
  pageQuery,
  tenantEndpointBody,
  webhookDeliverySchema,
  webhookEndpointSchema,
  deliveryJson,
  endpointJson,
  createdTenantEndpointSchema,
  tenantEndpointPageSchema,
  tenantEndpointSchema,
} from './webhooks.schemas.js';
import type { WebhookEndpoint } from '../../../domain/webhooks/endpoint.js';
import { idempotencyHeaders, orderSchema } from '../booking/booking.schemas.js';
import { securityEventSchema } from '../security-events/security-events.operations.js';
import { AGENT_SECURITY_EVENT_TYPES, TENANT_SECURITY_EVENT_TYPES, VOUCHER_REDEEMED } from '../../../domain/webhooks/events.js';
import { transactionDataSchema } from '../wallet/transactions.schemas.js';
import { walletUserDataSchema } from '../wallet/users.schemas.js';
import { authorizationFields } from '../wallet/authorizations.schemas.js';
import type { AuthorizationEventType } from '../../../domain/webhooks/events.js';

const MACHINE_ERRORS: Readonly<Record<number, ResponseSpec>> = {
  401: { description: 'No valid machine token', reasons: ['invalid-token'] },
  403: { description: 'A user token was sent', reasons: ['machine-token-required'] },
};

const SIGNING =
  'Each delivery is `POST <url>` with `Content-Type: application/json`, the body `{ type, timestamp, data, livemode }` (`livemode` false for a sandbox owner) and the Standard Webhooks headers ' +
  '`webhook-id` (the event id, the same on every attempt), `webhook-timestamp` (Unix seconds of the attempt) and `webhook-signature` ' +
  '(`v1,` + base64 HMAC-SHA256 of `<id>.<timestamp>.<body>` keyed with the base64-decoded secret after `whsec_`). A 2xx within 10 s is a success; ' +
  'anything else is retried on `WEBHOOK_RETRY_SCHEDULE` (default 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h), then the delivery is `failed`.';

/**
 * `/webhook-endpoints…` for one surface: agents (under `/api/v1`, behind the key check) or
 * tenants (at the wallet root, machine token). The handlers give the use cases the authenticated
 * caller; the core makes the owner of it.
 */
function operationsFor(surface: 'agent' | 'tenant'): Operation[] {
  const booking = surface === 'agent';
  const callerOf = (caller: Caller): WebhookCaller => (booking ? caller.agent() : caller.machine());
  const base = booking ? '/api/v1/webhook-endpoints' : '/webhook-endpoints';
  const common = booking
    ? ({ surface: 'booking', tags: ['webhooks'], token: 'api-key', scope: 'webhooks:manage' } as const)
    : ({ surface: 'wallet', tags: ['webhooks'], token: 'machine' } as const);
  const auth = booking ? KEY_ERRORS : MACHINE_ERRORS;
  const id = (name: string) => (booking ? `${name}` : `${name}ForTenant`);
  const notFound: ResponseSpec = { description: 'No such endpoint, or another caller’s', reasons: ['webhook-endpoint-not-found'] };
  const events = booking
    ? '`order.confirmed`, `order.cancelled`, `order.voucher_redeemed`, `api_key.revoked`, `api_key.expiring`, and the security trail’s booking types (`api_key.created`, `api_key.rolled`, `api_key.leak_reported`, `api_key.refused`, `webhook_endpoint.created`, `webhook_endpoint.deleted`)'
    : '`transaction.created`, `wallet_user.created`, and the security trail’s wallet types (`client_secret.rotated`, `client.jwks_updated`, `token.revoked`, `delegated_token.issued`, `user.created`, `user.login_succeeded`, `user.login_failed`, `user.locked_out`, `user.disabled`, `user.enabled`, `webhook_endpoint.created`, `webhook_endpoint.deleted`)';
  const endpointId = booking ? EXAMPLE_IDS.bookingEndpoint : EXAMPLE_IDS.walletEndpoint;
  const request = booking
    ? {
        url: 'https://hooks.example.com/pbw/booking',
        events: ['order.confirmed', 'order.cancelled'],
        description: 'Bookings for our back office',
      }
    : { url: 'https://hooks.example.com/pbw/wallet', events: ['transaction.created'], description: 'Ledger sync' };
  // Endpoints and deliveries carry their owner's `livemode`, as every object does (the demo agent and tenant are live).
  const endpoint = (demo: DemoExamples) => ({
    id: endpointId,
    ...request,
    status: 'active',
    createdAt: demo.createdAt,
    livemode: true,
  });
  const livemodeOf = (caller: Caller): boolean => (booking ? caller.agent().livemode : caller.livemode());
  const endpointView = (e: WebhookEndpoint, caller: Caller) => endpointJson(e, livemodeOf(caller));
  const schemas = booking
    ? { one: webhookEndpointSchema, created: createdEndpointSchema, page: endpointPageSchema }
    : { one: tenantEndpointSchema, created: createdTenantEndpointSchema, page: tenantEndpointPageSchema };
  const delivery = (demo: DemoExamples) => ({
    id: EXAMPLE_IDS.delivery,
    eventId: EXAMPLE_IDS.event,
    type: request.events[0],
    status: 'delivered',
    attempts: 1,
    lastStatusCode: 204,
    lastAttemptAt: demo.createdAt.replace('T03:00:00', 'T03:00:01'),
    nextAttemptAt: null,
    createdAt: demo.createdAt,
    livemode: true,
  });
  const params = { endpointId };
  const page = { limit: 20 };
  return [
    operation({
      ...common,
      method: 'post',
      path: base,
      operationId: id('createWebhookEndpoint'),
      summary: 'Register a webhook endpoint',
      description: `Events: ${events}. The URL must be https and resolve only to public addresses (checked again at each delivery) unless the service runs with WEBHOOK_ALLOW_INSECURE / WEBHOOK_ALLOW_PRIVATE. The signing secret is in this response only. At most 10 endpoints per caller. ${SIGNING}`,
      request: { body: booking ? agentEndpointBody : tenantEndpointBody },
      examples: (demo) => ({
        body: request,
        response: { ...endpoint(demo), secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw/h5bu8Ujj8U=' },
      }),
      responses: {
        201: {
          description: 'The endpoint, with its secret (shown once)',
          schema: schemas.created,
          headers: { Location: 'The endpoint' },
        },
        400: { description: 'Bad body, or a URL that is refused', reasons: ['invalid-request', 'malformed-json', 'invalid-webhook-url'] },
        ...auth,
        409: { description: 'The caller already has the maximum of endpoints', reasons: ['too-many-webhook-endpoints'] },
      },
      handler: async ({ body, req, caller, core }) => {
        const created = await core.webhooks.register.execute(callerOf(caller), body, requestOrigin(req));
        return {
          status: 201,
          headers: { 'Cache-Control': 'no-store', Location: `${req.baseUrl}/webhook-endpoints/${created.id}` },
          body: { ...endpointView(created, caller), secret: created.secret },
        };
      },
    }),
    operation({
      ...common,
      method: 'get',
      path: base,
      operationId: id('listWebhookEndpoints'),
      summary: 'The caller’s webhook endpoints, newest first',
      request: { query: pageQuery },
      examples: (demo) => ({ query: page, response: { data: [endpoint(demo)], nextCursor: null } }),
      responses: {
        200: { description: 'One keyset page', schema: schemas.page },
        400: { description: 'Bad limit or cursor', reasons: ['invalid-request'] },
        ...auth,
      },
      handler: async ({ query, caller, core }) => {
        const page = await core.webhooks.list.execute(callerOf(caller), query);
        return {
          status: 200,
          headers: NO_STORE,
          body: { data: page.data.map((e) => endpointView(e, caller)), nextCursor: page.nextCursor },
        };
      },
    }),
    operation({
      ...common,
      method: 'get',
      path: `${base}/{endpointId}`,
      operationId: id('getWebhookEndpoint'),
      summary: 'One of the caller’s webhook endpoints (no secret)',
      request: { params: endpointParams },
      examples: (demo) => ({ params, response: endpoint(demo) }),
      responses: {
        200: { description: 'The endpoint', schema: schemas.one },
        400: { description: 'Bad id', reasons: ['invalid-request'] },
        ...auth,
        404: notFound,
      },
      handler: async ({ params: { endpointId }, caller, core }) => ({
        status: 200,
        headers: NO_STORE,
        body: endpointView(await core.webhooks.get.execute(callerOf(caller), endpointId), caller),
      }),
    }),
    operation({
      ...common,
      method: 'delete',
      path: `${base}/{endpointId}`,
      operationId: id('deleteWebhookEndpoint'),
      summary: 'Delete a webhook endpoint: nothing more is sent to it',
      request: { params: endpointParams },
      examples: () => ({ params }),
      responses: { 204: { description: 'Deleted' }, 400: { description: 'Bad id', reasons: ['invalid-request'] }, ...auth, 404: notFound },
      handler: async ({ params: { endpointId }, caller, core, req }) => {
        await core.webhooks.remove.execute(callerOf(caller), endpointId, requestOrigin(req));
        return { status: 204 };
      },
    }),
    operation({
      ...common,
      method: 'get',
      path: `${base}/{endpointId}/deliveries`,
      operationId: id('listWebhookDeliveries'),
      summary: 'The deliveries of one endpoint, newest first',
      request: { params: endpointParams, query: pageQuery },
      examples: (demo) => ({ params, query: page, response: { data: [delivery(demo)], nextCursor: null } }),
      responses: {
        200: { description: 'One keyset page', schema: deliveryPageSchema },
        400: { description: 'Bad limit or cursor', reasons: ['invalid-request'] },
        ...auth,
        404: notFound,
      },
      handler: async ({ params: { endpointId }, query, caller, core }) => {
        const page = await core.webhooks.deliveries.execute(callerOf(caller), endpointId, query);
        return {
          status: 200,
          headers: NO_STORE,
          body: { data: page.data.map((d) => deliveryJson(d, livemodeOf(caller))), nextCursor: page.nextCursor },
        };
      },
    }),
    operation({
      ...common,
      method: 'post',
      path: `${base}/{endpointId}/deliveries/{deliveryId}/retry`,
      operationId: id('retryWebhookDelivery'),
      summary: 'Try a delivery again now',
      description:
        'Pending, delivered or failed alike: the delivery is due at once (same `webhook-id`). A failed delivery that fails again stays failed.',
      request: { params: deliveryParams },
      examples: (demo) => ({
        params: { endpointId, deliveryId: EXAMPLE_IDS.delivery },
        response: { ...delivery(demo), status: 'pending', nextAttemptAt: demo.createdAt.replace('T03:00', 'T04:00') },
      }),
      responses: {
        202: { description: 'The delivery, due now', schema: webhookDeliverySchema },
        400: { description: 'Bad id', reasons: ['invalid-request'] },
        ...auth,
        404: {
          description: 'No such endpoint or delivery, or another caller’s',
          reasons: ['webhook-endpoint-not-found', 'webhook-delivery-not-found'],
        },
      },
      handler: async ({ params: { endpointId, deliveryId }, caller, core }) => {
        const delivery = await core.webhooks.retry.execute(callerOf(caller), endpointId, deliveryId);
        return { status: 202, headers: NO_STORE, body: deliveryJson(delivery, livemodeOf(caller)) };
      },
    }),
    operation({
      ...common,
      method: 'post',
      path: `${base}/{endpointId}/test`,
      operationId: id('sendTestWebhook'),
      summary: 'Send the endpoint a signed sample event',
      description:
        'A sample event of `type` (any of the caller’s event types, subscribed or not), its `data` shaped as a real event of that type carries it, ' +
        'with `"test": true` in the body: `{ type, timestamp, data, test, livemode }`. It goes through the normal delivery path: a delivery of its own ' +
        '(listed with the endpoint’s deliveries, retried like any other), signed with the endpoint’s secret, its `webhook-id` the answer’s `eventId`. ' +
        'A test event is never in the event feed. A retry with the same `Idempotency-Key` answers the first delivery and sends nothing more.',
      request: { params: endpointParams, body: booking ? agentTestBody : tenantTestBody, headers: idempotencyHeaders },
      idempotency: { scope: booking ? 'agent' : 'wallet' },
      examples: (demo) => ({
        params,
        headers: {
          'Idempotency-Key': booking ? EXAMPLE_IDEMPOTENCY_KEYS.sendTestWebhook : EXAMPLE_IDEMPOTENCY_KEYS.sendTestWebhookForTenant,
        },
        body: { type: request.events[0] },
        response: {
          ...delivery(demo),
          status: 'pending',
          attempts: 0,
          lastStatusCode: null,
          lastAttemptAt: null,
          nextAttemptAt: demo.createdAt,
        },
      }),
      responses: {
        202: { description: 'The test event’s delivery, due now', schema: webhookDeliverySchema },
        400: { description: 'Bad id or body, or a type that is not the caller’s', reasons: ['invalid-request', 'malformed-json'] },
        ...auth,
        404: notFound,
      },
      handler: async ({ params: { endpointId }, body, caller, core }) => {
        const delivery = await core.webhooks.sendTest.execute(callerOf(caller), endpointId, body.type);
        return { status: 202, headers: NO_STORE, body: deliveryJson(delivery, livemodeOf(caller)) };
      },
    }),
  ];
}

/** The agents' webhook endpoint operations. */
export const agentWebhookOperations: readonly Operation[] = operationsFor('agent');

/** The tenants' webhook endpoint operations. */
export const tenantWebhookOperations: readonly Operation[] = operationsFor('tenant');

/** The webhook endpoint operations of both surfaces. */
export const webhookOperations: readonly Operation[] = [...agentWebhookOperations, ...tenantWebhookOperations];

/** One published event: its name, who receives it and the resource it carries. */
export interface WebhookEventSpec {
  readonly surface: 'booking' | 'wallet';
  readonly type: string;
  readonly summary: string;
  readonly data: z.ZodType;
}

const keySchema = z
  .object({
    id: z.string(),
    prefix: z.string(),
    status: z.enum(['ACTIVE', 'REVOKED']),
    createdAt: z.string().datetime(),
    expiresAt: z.string().datetime().nullable(),
    revokedAt: z.string().datetime().nullable(),
    revokedReason: z.enum(['rotated', 'leaked', 'operator', 'revoked']).nullable(),
    livemode: z.boolean().describe('False for a sandbox agent’s key (`pbk_test_…`)'),
  })
  .meta({ id: 'ApiKeyMetadata' });

/** Every order event, with what it says; each carries the order and the status it had before (`previousStatus`). */
const ORDER_EVENTS: ReadonlyArray<readonly [(typeof ORDER_EVENT_TYPES)[number], string]> = [
  ['order.held', 'An order of the agent was placed on hold'],
  ['order.pending', 'An order of the agent waits for its on-request operator'],
  ['order.confirmed', 'An order of the agent was confirmed (at once, from a hold, or by its operator)'],
  ['order.rejected', 'The operator refused a pending order, or its deadline passed (`rejectionReason: operator-timeout`)'],
  ['order.expired', 'A hold of the agent lapsed at its `holdExpiresAt`'],
  ['order.released', 'A hold was released by the agent, or because the key that made it was reported leaked'],
  ['order.cancelled', 'An order of the agent was cancelled (by the agent or, `cancelledBy: operator`, by its operator)'],
];
const orderEventSchema = z
  .intersection(orderSchema, z.object({ previousStatus: z.enum(ORDER_STATUSES).nullable() }))
  .meta({ id: 'OrderEventData', description: 'The order as the API returns it, and the status it had before this change' });

const voucherRedeemedSchema = z
  .intersection(
    orderSchema,
    z.object({
      previousStatus: z.enum(ORDER_STATUSES).describe('The status before the redemption, which changes none: CONFIRMED'),
      voucherRedeemedAt: z.string().datetime().describe('When the operator redeemed the voucher'),
    }),
  )
  .meta({
    id: 'VoucherRedeemedEventData',
    description:
      'The order as the API returns it (CONFIRMED), the status it had before (the same, as every order event carries it), and when its voucher was redeemed',
  });
/** Every authorization event, with what it says; each carries the authorization as it is after the change. */
const AUTHORIZATION_EVENTS: ReadonlyArray<readonly [AuthorizationEventType, string]> = [
  ['authorization.created', 'A wallet holder authorized a later charge: the amount is held from their balance'],
  ['authorization.captured', 'The tenant captured all or part of an authorization (`capture` is the PAYMENT it recorded)'],
  ['authorization.voided', 'An authorization was voided: the money it held is available again'],
  ['authorization.expired', 'An authorization lapsed at its `expiresAt` uncaptured'],
];
const authorizationEventSchema = z
  .intersection(authorizationFields, z.object({ capture: transactionDataSchema.nullable() }))
  .meta({ id: 'AuthorizationEventData', description: 'The authorization after this change, and the PAYMENT of a capture (else null)' });

/** Every event, published as OpenAPI 3.1 `webhooks` in the file of the surface that registers it. */
export const WEBHOOK_EVENTS: readonly WebhookEventSpec[] = [
  ...ORDER_EVENTS.map(([type, summary]) => ({ surface: 'booking' as const, type, summary, data: orderEventSchema })),
  {
    surface: 'booking',
    type: VOUCHER_REDEEMED,
    summary: 'The operator redeemed the voucher of an order of the agent (once per order) as the traveller boarded',
    data: voucherRedeemedSchema,
  },
  {
    surface: 'booking',
    type: 'api_key.revoked',
    summary: 'A key of the agent was revoked (rotation, leak report or operator)',
    data: keySchema,
  },
  {
    surface: 'wallet',
    type: 'transaction.created',
    summary: 'A top-up, payment, transfer or refund was recorded in the tenant',
    data: transactionDataSchema,
  },
  {
    surface: 'wallet',
    type: 'wallet_user.created',
    summary: 'A wallet user of the tenant was created (POST /users, the operator, or a delegated token’s first use)',
    data: walletUserDataSchema,
  },
  ...AUTHORIZATION_EVENTS.map(([type, summary]) => ({ surface: 'wallet' as const, type, summary, data: authorizationEventSchema })),
  ...AGENT_SECURITY_EVENT_TYPES.map((type) => ({
    surface: 'booking' as const,
    type,
    summary: `The security trail recorded \`${type}\` for the agent; \`data\` is the event as \`GET /api/v1/security-events\` returns it`,
    data: securityEventSchema,
  })),
  ...TENANT_SECURITY_EVENT_TYPES.map((type) => ({
    surface: 'wallet' as const,
    type,
    summary: `The security trail recorded \`${type}\` for the tenant; \`data\` is the event as \`GET /security-events\` returns it`,
    data: securityEventSchema,
  })),
];

/** The body a receiver gets for one event type. */
export const eventBodySchema = (e: WebhookEventSpec) =>
  z
    .object({
      type: z.literal(e.type),
      timestamp: z.string().datetime().describe('When the change happened (RFC 3339)'),
      data: z.intersection(e.data, z.object({ livemode: z.boolean().describe('The owner’s mode, as the resource carries it') })),
      livemode: z.boolean().describe('False for a sandbox owner’s event (CONTRACT §6.7)'),
    })
    .meta({ id: `${e.type.replace(/(^|[._])([a-z])/g, (_, __, c: string) => c.toUpperCase())}Event` });

export const WEBHOOK_SIGNING_TEXT = SIGNING;
