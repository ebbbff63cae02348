import { z } from 'zod';
import { securityEventView } from '../../json-views.js';
import { SECURITY_EVENT_TYPES } from '../../../domain/security-events/security-event.js';
import { KEY_ERRORS } from '../booking/booking.openapi-common.js';
import { EXAMPLE_IDS, type DemoExamples } from '../openapi/examples.js';
import { NO_STORE, operation, type Caller, type Operation, type ResponseSpec } from '../operation.js';
import { pageQueryFields } from '../page.schemas.js';

export { securityEventView };

export const securityEventSchema = z
  .object({
    id: z.string().describe('`sev_…`'),
    type: z.enum(SECURITY_EVENT_TYPES as unknown as [string, ...string[]]),
    occurredAt: z.iso.datetime(),
    actor: z
      .object({
        kind: z.enum(['api-key', 'client', 'user', 'operator', 'system']),
        id: z
          .string()
          .describe(
            'The key, client or user id; `operator` or `system`; `anonymous` (kind `user`) for a sign-in attempt, whose account is the subject',
          ),
        amr: z.array(z.string()).optional().describe('How a user was authenticated (`pwd`, `tenant_delegated`)'),
        act: z.object({ sub: z.string() }).optional().describe('The client acting for a user'),
      })
      .describe('Who did it'),
    subject: z
      .object({ kind: z.string(), id: z.string() })
      .describe('What it was done to: an API key, a client, a user, a token, a webhook endpoint'),
    ip: z.string().nullable().describe('The client address of the request; null outside a request'),
    requestId: z.string().nullable().describe('The `X-Request-Id` of the request; null outside a request'),
    details: z.record(z.string(), z.unknown()).describe('What the type says more; never a secret, password, token or key'),
    livemode: z.boolean().describe('False for a sandbox agent’s or tenant’s trail (CONTRACT §6.7)'),
  })
  .meta({ id: 'SecurityEvent', description: 'One entry of the security trail: append-only' });

const securityEventPageSchema = z
  .object({ data: z.array(securityEventSchema), nextCursor: z.string().nullable() })
  .meta({ id: 'SecurityEventPage' });

const securityEventQuery = z.object({
  type: z.string().max(1000).optional().describe('Only these types, comma-separated'),
  since: z.iso.datetime({ offset: true }).optional().describe('Events at or after this time (RFC 3339)'),
  until: z.iso.datetime({ offset: true }).optional().describe('Events before this time (RFC 3339)'),
  ...pageQueryFields,
});

export const eventExample = (demo: DemoExamples) => ({
  id: EXAMPLE_IDS.securityEvent,
  type: 'api_key.created',
  occurredAt: demo.createdAt,
  actor: { kind: 'api-key', id: EXAMPLE_IDS.apiKey },
  subject: { kind: 'api_key', id: EXAMPLE_IDS.createdApiKey },
  ip: '203.0.113.7',
  requestId: 'req_5d1c2f8a9b3e4d6f',
  details: {
    name: 'nightly report',
    scopes: ['orders:read'],
    allowedIps: ['203.0.113.7/32'],
    expiresAt: null,
    createdByKeyId: EXAMPLE_IDS.apiKey,
  },
  livemode: true,
});

const QUERY_ERRORS: ResponseSpec = { description: 'An unknown `type`, a bad time, limit or cursor', reasons: ['invalid-request'] };

const DESCRIPTION =
  'Newest first, paginated like every list (`limit` 1..100, default 20; `nextCursor`). Filter by `type` (comma-separated), `since` and `until`. ' +
  'Events are append-only; they are kept for `SECURITY_EVENT_RETENTION_DAYS` (400 by default). No event holds a secret, password, token or key.';

type Query = z.infer<typeof securityEventQuery>;

const list = async (
  caller: ReturnType<Caller['agent']> | ReturnType<Caller['machine']>,
  livemode: boolean,
  query: Query,
  core: Parameters<Operation['handler']>[0]['core'],
) => {
  const page = await core.identity.listSecurityEvents.forCaller(caller, {
    types: query.type === undefined ? undefined : query.type.split(','),
    since: query.since === undefined ? undefined : new Date(query.since),
    until: query.until === undefined ? undefined : new Date(query.until),
    limit: query.limit,
    cursor: query.cursor,
  });
  return {
    status: 200,
    headers: NO_STORE,
    body: { data: page.data.map((e) => ({ ...securityEventView(e), livemode })), nextCursor: page.nextCursor },
  };
};

/** The calling agent's security trail (a key with `events:read`). */
export const agentSecurityEventOperations: readonly Operation[] = [
  operation({
    surface: 'booking',
    method: 'get',
    path: '/api/v1/security-events',
    operationId: 'listAgentSecurityEvents',
    summary: 'The calling agent’s security events',
    description: `What happened to the agent’s keys and webhook endpoints, and who did it. ${DESCRIPTION}`,
    tags: ['security-events'],
    token: 'api-key',
    scope: 'events:read',
    request: { query: securityEventQuery },
    examples: (demo) => ({
      query: { type: 'api_key.created,api_key.revoked', since: demo.from, until: demo.to, limit: 20 },
      response: { data: [eventExample(demo)], nextCursor: null },
    }),
    responses: {
      200: { description: 'One keyset page', schema: securityEventPageSchema },
      400: QUERY_ERRORS,
      ...KEY_ERRORS,
    },
    handler: async ({ query, caller, core }) => list(caller.agent(), caller.agent().livemode, query, core),
  }),
];

/** The tenant's security trail (the backend's machine token). */
export const tenantSecurityEventOperations: readonly Operation[] = [
  operation({
    surface: 'wallet',
    method: 'get',
    path: '/security-events',
    operationId: 'listTenantSecurityEvents',
    summary: 'The tenant’s security events',
    description: `What happened to the tenant’s client, tokens, wallet users and webhook endpoints, and who did it. ${DESCRIPTION}`,
    tags: ['security-events'],
    token: 'machine',
    request: { query: securityEventQuery },
    examples: (demo) => ({
      query: { type: 'user.login_failed,user.locked_out', since: demo.from, until: demo.to, limit: 20 },
      response: {
        data: [
          {
            ...eventExample(demo),
            type: 'user.locked_out',
            actor: { kind: 'system', id: 'system' },
            subject: { kind: 'wallet_user', id: EXAMPLE_IDS.demoUser },
            details: {},
          },
        ],
        nextCursor: null,
      },
    }),
    responses: {
      200: { description: 'One keyset page', schema: securityEventPageSchema },
      400: QUERY_ERRORS,
    },
    handler: async ({ query, caller, core }) => list(caller.machine(), caller.livemode(), query, core),
  }),
];
