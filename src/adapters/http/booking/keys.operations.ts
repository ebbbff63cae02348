import { keyView } from './booking.views.js';
import { z } from 'zod';
import { NO_STORE, operation, type Operation } from '../operation.js';
import { EXAMPLE_IDEMPOTENCY_KEYS, EXAMPLE_IDS, EXAMPLE_SECRETS, type DemoExamples } from '../openapi/examples.js';
import { BODY_LIMITS, INVALID, INVALID_BODY, KEY_ERRORS } from './booking.openapi-common.js';
import { createKeyBody, idempotencyHeaders, keyParams, keySchema, rollKeyBody } from './booking.schemas.js';
import { requestOrigin } from '../client-address.js';

/** The demo agent's key as `GET /api/v1/keys` shows it. */
const keyExample = (demo: DemoExamples) => ({
  id: EXAMPLE_IDS.apiKey,
  prefix: EXAMPLE_SECRETS.apiKey.slice(0, 8),
  status: 'ACTIVE',
  createdAt: demo.createdAt,
  expiresAt: null,
  lastUsedAt: demo.createdAt.replace('T03:00', 'T03:05'),
  revokedAt: null,
  revokedReason: null,
  rolledFromKeyId: null,
  name: 'demo',
  scopes: ['*'],
  allowedIps: [],
  createdByKeyId: null,
  livemode: true,
});

/** A read-only key the demo key made for a reporting job. */
const createdKeyExample = (demo: DemoExamples) => ({
  ...keyExample(demo),
  id: EXAMPLE_IDS.createdApiKey,
  prefix: 'pbk_7Hq2',
  lastUsedAt: null,
  name: 'nightly report',
  scopes: ['orders:read'],
  allowedIps: ['203.0.113.7/32'],
  createdByKeyId: EXAMPLE_IDS.apiKey,
});

/** The 201 of a create and of a roll: the new key, shown in the first answer only, and its metadata. */
const NEW_KEY_DESCRIPTION = 'The new key (shown only here) and its metadata; a replay (`Idempotent-Replayed: true`) has no `apiKey`';
const newKeyShape = {
  apiKey: z.string().optional().describe('The new key, shown in the first answer only: absent from a replay'),
  key: keySchema,
};

/** The calling agent's keys: listed and created at one path. */
const KEYS_PATH = '/api/v1/keys';

/**
 * The calling agent's keys: list them, roll the calling key, report the calling key leaked. Each
 * write acts on the key that authenticated the request and nothing else: no path names a key.
 */
export const keyOperations: readonly Operation[] = [
  operation({
    surface: 'booking',
    method: 'get',
    path: KEYS_PATH,
    operationId: 'listKeys',
    summary: 'The calling agent’s keys (metadata only)',
    description:
      'Every key of the calling agent, oldest first, without the key itself. `lastUsedAt` is approximate: it may lag by up to 60 s. A rolled key shows the end of its overlap as `expiresAt`: ACTIVE until then, REVOKED (`rotated`) after.',
    tags: ['keys'],
    token: 'api-key',
    scope: 'keys:manage',
    examples: (demo) => ({ response: { data: [keyExample(demo)] } }),
    responses: {
      200: { description: 'The agent’s keys', schema: z.object({ data: z.array(keySchema) }) },
      ...KEY_ERRORS,
    },
    handler: async ({ caller, core }) => {
      const keys = await core.identity.listOwnKeys.execute(caller.agent());
      return { status: 200, headers: NO_STORE, body: { data: keys.map(keyView) } };
    },
  }),
  operation({
    surface: 'booking',
    method: 'post',
    path: KEYS_PATH,
    operationId: 'createKey',
    summary: 'Make another key for the calling agent',
    description:
      'Makes a key with the given `name`, `scopes`, and optionally `allowedIps` (up to 20 IPv4 or IPv6 CIDRs) and `expiresAt`, and returns it once. The scopes must be held by the calling key (`*` holds them all), else 403 `scope-not-held`. A key is never wider than the calling key: `allowedIps` must lie within the calling key’s (each range inside one of its ranges) and `expiresAt` no later than its expiry; left out, they are the calling key’s. Anything wider answers 403 `policy-not-held`, naming the field in `field`. The new key records the calling key as `createdByKeyId`: a leak report of the calling key (or of any key it was rolled from) revokes it too, and a create racing that report is either revoked with it or refused with 401 `invalid-api-key`. An agent holds at most 50 keys that are not revoked: the 51st answers 409 `too-many-keys`. The Idempotency-Key belongs to the calling key: another key of the agent sending the same one makes its own key. A retry with the same Idempotency-Key replays the first answer without `apiKey` (only a hash of the key is kept, nowhere its plaintext), with `Idempotent-Replayed: true`.',
    tags: ['keys'],
    token: 'api-key',
    scope: 'keys:manage',
    request: { body: createKeyBody, headers: idempotencyHeaders },
    examples: (demo) => ({
      headers: { 'Idempotency-Key': EXAMPLE_IDEMPOTENCY_KEYS.createKey },
      body: { name: 'nightly report', scopes: ['orders:read'], allowedIps: ['203.0.113.7/32'] },
      response: { apiKey: 'pbk_7Hq2…', key: createdKeyExample(demo) },
    }),
    responses: {
      201: {
        description: NEW_KEY_DESCRIPTION,
        schema: z.object({
          ...newKeyShape,
        }),
      },
      400: INVALID_BODY,
      ...KEY_ERRORS,
      403: {
        description:
          'The agent is suspended, the calling key does not hold a scope asked for, or the new key would be usable from an address or at a time the calling key is not (`field` names which)',
        reasons: ['agent-suspended', 'scope-not-held', 'policy-not-held'],
      },
      409: {
        description: 'The agent would hold more than 50 keys that are not revoked; or a request with this Idempotency-Key is still running',
        reasons: ['too-many-keys', 'idempotency-key-in-use'],
      },
      ...BODY_LIMITS,
      422: { description: 'The Idempotency-Key was used with another request', reasons: ['idempotency-key-reused'] },
    },
    // Scoped to the calling key; a replay answers the new key's metadata only, never the key.
    idempotency: { scope: 'calling-key', secretFields: ['apiKey'] },
    handler: async ({ body, caller, core, req }) => {
      const created = await core.identity.createOwnKey.execute(
        caller.agent(),
        {
          name: body.name,
          scopes: body.scopes,
          allowedIps: body.allowedIps,
          expiresAt: body.expiresAt === undefined || body.expiresAt === null ? body.expiresAt : new Date(body.expiresAt),
        },
        requestOrigin(req),
      );
      return { status: 201, headers: NO_STORE, body: { apiKey: created.apiKey, key: keyView(created.key) } };
    },
  }),
  operation({
    surface: 'booking',
    method: 'delete',
    path: '/api/v1/keys/{keyId}',
    operationId: 'revokeCreatedKey',
    summary: 'Revoke a key the calling key created',
    description:
      'Revokes (reason `revoked`) a key that the calling key created, directly or through keys it created, at once on every instance. Any other key — the calling key itself, a sibling, another agent’s key — answers 404, so no key’s existence is revealed.',
    tags: ['keys'],
    token: 'api-key',
    scope: 'keys:manage',
    request: { params: keyParams },
    examples: () => ({ params: { keyId: EXAMPLE_IDS.createdApiKey } }),
    responses: {
      204: { description: 'Revoked' },
      400: INVALID,
      ...KEY_ERRORS,
      404: { description: 'No key the calling key created has this id', reasons: ['key-not-found'] },
    },
    handler: async ({ params: { keyId }, caller, core, req }) => {
      await core.identity.revokeCreatedKey.execute(caller.agent(), keyId, requestOrigin(req));
      return { status: 204 };
    },
  }),
  operation({
    surface: 'booking',
    method: 'post',
    path: '/api/v1/keys/current/roll',
    operationId: 'rollCurrentKey',
    summary: 'Roll the calling key',
    description:
      'Issues a new key for the same agent (with the same expiry) and returns it once. The calling key keeps working for `overlapSeconds` (default 3600, at most 86400; 0 ends it at once), never past its own expiry (`previousKeyValidUntil` says when it stops), and then counts as REVOKED with reason `rotated`. Only the calling key can be rolled, and only once. An agent holds at most 50 keys that are not revoked (keys in a roll’s overlap count): a roll that would make the 51st answers 409 `too-many-keys` (a roll with `overlapSeconds` 0 adds none). The Idempotency-Key belongs to the calling key: another key of the agent sending the same one makes its own roll. A retry with the same Idempotency-Key replays the first answer without `apiKey` (only a hash of the key is kept, nowhere its plaintext), with `Idempotent-Replayed: true`: the new key’s metadata tells which key was made.',
    tags: ['keys'],
    token: 'api-key',
    scope: null,
    request: { body: rollKeyBody, headers: idempotencyHeaders },
    examples: () => ({ headers: { 'Idempotency-Key': EXAMPLE_IDEMPOTENCY_KEYS.rollCurrentKey }, body: { overlapSeconds: 3600 } }),
    responses: {
      201: {
        description: NEW_KEY_DESCRIPTION,
        schema: z.object({
          ...newKeyShape,
          previousKeyValidUntil: z
            .string()
            .describe('When the calling key stops working: the end of the overlap, or its own expiry if sooner'),
        }),
      },
      400: INVALID_BODY,
      ...KEY_ERRORS,
      409: {
        description:
          'The calling key was already rolled; the agent would hold more than 50 keys that are not revoked; or a request with this Idempotency-Key is still running',
        reasons: ['key-already-rolled', 'too-many-keys', 'idempotency-key-in-use'],
      },
      ...BODY_LIMITS,
      422: { description: 'The Idempotency-Key was used with another request', reasons: ['idempotency-key-reused'] },
    },
    // Scoped to the calling key; a replay answers the new key's metadata only, never the key.
    idempotency: { scope: 'calling-key', secretFields: ['apiKey'] },
    handler: async ({ body, caller, core, req }) => {
      const rolled = await core.identity.rollOwnKey.execute(caller.agent(), body, requestOrigin(req));
      return {
        status: 201,
        headers: NO_STORE,
        body: { apiKey: rolled.apiKey, key: keyView(rolled.key), previousKeyValidUntil: rolled.previousKeyValidUntil.toISOString() },
      };
    },
  }),
  operation({
    surface: 'booking',
    method: 'post',
    path: '/api/v1/keys/current/report-leak',
    operationId: 'reportCurrentKeyLeaked',
    summary: 'Report the calling key leaked',
    description:
      'Revokes the calling key as `leaked` at once, on every instance within a second, and with it every key rolled from it, directly or not. Orders placed with any of these keys can no longer be cancelled (409 `booked-with-leaked-key`). The key used for this request stops working with it.',
    tags: ['keys'],
    token: 'api-key',
    scope: null,
    responses: {
      200: {
        description: 'The revoked key, and the keys rolled from it that were revoked with it',
        schema: z.object({ key: keySchema, rolledKeys: z.array(keySchema) }),
      },
      400: INVALID_BODY,
      ...KEY_ERRORS,
      ...BODY_LIMITS,
    },
    jsonBody: true,
    handler: async ({ caller, core, req }) => {
      const leak = await core.identity.reportOwnKeyLeaked.execute(caller.agent(), requestOrigin(req));
      return { status: 200, headers: NO_STORE, body: { key: keyView(leak.key), rolledKeys: leak.rolledKeys.map(keyView) } };
    },
  }),
];
