import { z } from 'zod';
import type { WebhookCaller } from '../../../domain/webhooks/owner.js';
import type { FeedEvent } from '../../../domain/webhooks/webhook-store.port.js';
import { KEY_ERRORS } from '../booking/booking.openapi-common.js';
import { EXAMPLE_IDS } from '../openapi/examples.js';
import { NO_STORE, operation, type Operation, type ResponseSpec } from '../operation.js';
import { pageQueryFields } from '../page.schemas.js';
import { sampleEventData } from './sample-events.js';
import { bodyWithLivemode } from '../../webhooks/payloads.js';

const feedQuery = z.object({
  after: z
    .string()
    .min(1)
    .max(64)
    .optional()
    .describe('The id of the last event you have from the feed (`evt_…`); absent: from the oldest event kept'),
  type: z.string().max(2000).optional().describe('Only these event types, comma-separated'),
  limit: pageQueryFields.limit,
});

export const feedEventSchema = z
  .object({
    id: z.string().describe('`evt_…`: the `webhook-id` of every delivery of the event'),
    type: z.string(),
    timestamp: z.string().datetime().describe('When the change happened (RFC 3339)'),
    data: z.record(z.string(), z.unknown()).describe('The resource, exactly as the webhook body of this type carries it'),
    livemode: z.boolean().describe('False for a sandbox owner’s event (CONTRACT §6.7): the mode of the caller, whose events these are'),
  })
  .meta({ id: 'FeedEvent', description: 'One event: the webhook body of its deliveries, with its id and its owner’s mode' });

const feedPageSchema = z
  .object({
    data: z.array(feedEventSchema),
    nextCursor: z
      .string()
      .nullable()
      .describe('The id of the page’s last event when more are ready now (pass it as `after`); null when you are caught up'),
  })
  .meta({ id: 'EventFeedPage' });

/** A feed event as the API shows it: the id, then the delivery body as it was sent, and its owner's mode. */
const feedEventJson = (e: FeedEvent, livemode: boolean) => ({
  id: e.id,
  ...(JSON.parse(bodyWithLivemode(e.body, livemode)) as Record<string, unknown>),
});

const DESCRIPTION =
  'The caller’s webhook events, oldest first, after the event `after`: every event its endpoints get or would get (with no endpoint, or one ' +
  'that was down, nothing is missed), with the same ids as the deliveries’ `webhook-id` and the same body, kept `WEBHOOK_RETENTION_DAYS` ' +
  '(30 by default). Page on with `after` = the last id you got (`nextCursor` while more are ready; when it is null, the last event of `data`, ' +
  'or the `after` you sent). Under concurrent writes the feed never repeats or skips an event: an event shows once no transaction that ' +
  'began before it is still open, so it may appear a moment after its delivery. `limit` 1..100, default 20. Test events are never listed. ' +
  'An `after` that is not one of the caller’s feed events (unknown, another caller’s, or past retention) is 400 `invalid-request`: start again without it.';

type Query = z.infer<typeof feedQuery>;

const read = async (caller: WebhookCaller, livemode: boolean, query: Query, core: Parameters<Operation['handler']>[0]['core']) => {
  const page = await core.webhooks.feed.execute(caller, {
    after: query.after,
    types: query.type === undefined ? undefined : query.type.split(','),
    limit: query.limit,
  });
  return { status: 200, headers: NO_STORE, body: { data: page.data.map((e) => feedEventJson(e, livemode)), nextCursor: page.nextCursor } };
};

const QUERY_ERRORS: ResponseSpec = {
  description: 'An `after` that is not the caller’s feed event, an unknown `type`, a bad limit',
  reasons: ['invalid-request'],
};

const example = (type: 'order.confirmed' | 'transaction.created', createdAt: string) => {
  const at = new Date(createdAt);
  return { id: EXAMPLE_IDS.laterEvent, type, timestamp: createdAt, data: sampleEventData(type, at), livemode: true };
};

/** The agent's event feed (a key with `events:read`). */
export const agentEventFeedOperations: readonly Operation[] = [
  operation({
    surface: 'booking',
    method: 'get',
    path: '/api/v1/events',
    operationId: 'listAgentEvents',
    summary: 'The calling agent’s event feed',
    description: DESCRIPTION,
    tags: ['webhooks'],
    token: 'api-key',
    scope: 'events:read',
    request: { query: feedQuery },
    examples: (demo) => ({
      query: { after: EXAMPLE_IDS.event, type: 'order.confirmed,order.cancelled', limit: 20 },
      response: { data: [example('order.confirmed', demo.createdAt)], nextCursor: null },
    }),
    responses: {
      200: { description: 'The next events', schema: feedPageSchema },
      400: QUERY_ERRORS,
      ...KEY_ERRORS,
    },
    handler: async ({ query, caller, core }) => read(caller.agent(), caller.agent().livemode, query, core),
  }),
];

/** The tenant's event feed (the backend's machine token). */
export const tenantEventFeedOperations: readonly Operation[] = [
  operation({
    surface: 'wallet',
    method: 'get',
    path: '/events',
    operationId: 'listTenantEvents',
    summary: 'The tenant’s event feed',
    description: DESCRIPTION,
    tags: ['webhooks'],
    token: 'machine',
    request: { query: feedQuery },
    examples: (demo) => ({
      query: { after: EXAMPLE_IDS.event, type: 'transaction.created', limit: 20 },
      response: { data: [example('transaction.created', demo.createdAt)], nextCursor: null },
    }),
    responses: {
      200: { description: 'The next events', schema: feedPageSchema },
      400: QUERY_ERRORS,
      401: { description: 'No valid machine token', reasons: ['invalid-token'] },
      403: { description: 'A user token was sent', reasons: ['machine-token-required'] },
    },
    handler: async ({ query, caller, core }) => read(caller.machine(), caller.livemode(), query, core),
  }),
];
