import type { ApiKeyRecord } from '../identity/api-key.js';
import { kidsOf, type ClientJwkSet } from '../identity/client-keys.js';
import type { KeyRefusalReason } from '../identity/key-policy.js';
import type { EventOwner } from '../webhooks/events.js';
import { redactSecrets } from '../shared/redaction.js';

/** What the booking surface records about credentials. */
export const BOOKING_SECURITY_EVENT_TYPES = [
  'api_key.created',
  'api_key.rolled',
  'api_key.revoked',
  'api_key.leak_reported',
  'api_key.refused',
  'webhook_endpoint.created',
  'webhook_endpoint.deleted',
] as const;
/** What the wallet surface records about credentials. */
export const WALLET_SECURITY_EVENT_TYPES = [
  'client_secret.rotated',
  'client.jwks_updated',
  'token.revoked',
  'delegated_token.issued',
  'user.created',
  'user.login_succeeded',
  'user.login_failed',
  'user.locked_out',
  'user.disabled',
  'user.enabled',
  'webhook_endpoint.created',
  'webhook_endpoint.deleted',
] as const;
export type SecurityEventType = (typeof BOOKING_SECURITY_EVENT_TYPES)[number] | (typeof WALLET_SECURITY_EVENT_TYPES)[number];
export const SECURITY_EVENT_TYPES: readonly SecurityEventType[] = [
  ...new Set<SecurityEventType>([...BOOKING_SECURITY_EVENT_TYPES, ...WALLET_SECURITY_EVENT_TYPES]),
];

/**
 * Types kept at most once per subject and minute (and reason, for REASON_APART_TYPES): a refused
 * caller retrying in a loop leaves one line a minute, not one per request.
 */
export const ONCE_PER_MINUTE_TYPES: readonly SecurityEventType[] = ['api_key.refused', 'user.login_failed'];
/** Of ONCE_PER_MINUTE_TYPES, those kept once per reason too: a key refused for its address and for a scope in one minute shows both. */
export const REASON_APART_TYPES: readonly SecurityEventType[] = ['api_key.refused'];

export type ActorKind = 'api-key' | 'client' | 'user' | 'operator' | 'system';

/** Who did it. */
export interface SecurityActor {
  readonly kind: ActorKind;
  readonly id: string;
  /** How a user was authenticated (`pwd`, `tenant_delegated`). */
  readonly amr?: readonly string[];
  /** The client acting for a user. */
  readonly act?: { readonly sub: string };
}

/** Where a change came from: who, from which address, in which request (null outside a request). */
export interface SecurityContext {
  readonly actor: SecurityActor;
  readonly ip: string | null;
  readonly requestId: string | null;
}

/** The request's address and id, as the transport knows them. */
export interface RequestOrigin {
  readonly ip: string | null;
  readonly requestId: string | null;
}

/** An operator's command (the admin CLI). */
export const OPERATOR_CONTEXT: SecurityContext = { actor: { kind: 'operator', id: 'operator' }, ip: null, requestId: null };
/** The service itself (a background job, a rule applied with no caller). */
export const SYSTEM_CONTEXT: SecurityContext = { actor: { kind: 'system', id: 'system' }, ip: null, requestId: null };

/** A call made with an API key, from the request's origin. */
export const apiKeyContext = (keyId: string, origin: RequestOrigin = { ip: null, requestId: null }): SecurityContext => ({
  actor: { kind: 'api-key', id: keyId },
  ip: origin.ip,
  requestId: origin.requestId,
});

/** An event to record: written by a store in the transaction of the change it records. */
export interface NewSecurityEvent {
  readonly type: SecurityEventType;
  /** The agent or tenant whose trail it belongs to. */
  readonly owner: EventOwner;
  readonly occurredAt: Date;
  readonly actor: SecurityActor;
  readonly subject: { readonly kind: string; readonly id: string };
  readonly ip: string | null;
  readonly requestId: string | null;
  /** Never a secret, password, token or plaintext key. */
  readonly details: Readonly<Record<string, unknown>>;
}

/** A recorded event, as the API returns it (with `owner` for storage). */
export interface SecurityEvent extends NewSecurityEvent {
  /** `sev_…` */
  readonly id: string;
}

/** What a key's own trail event says of the key: metadata only, never its hash. */
const keySubject = (key: ApiKeyRecord) => ({ kind: 'api_key', id: key.id });
const keyOwner = (key: ApiKeyRecord): EventOwner => ({ kind: 'agent', id: key.agentId });

const eventOf = (
  type: SecurityEventType,
  key: ApiKeyRecord,
  context: SecurityContext,
  at: Date,
  details: Record<string, unknown>,
): NewSecurityEvent => ({
  type,
  owner: keyOwner(key),
  occurredAt: at,
  actor: context.actor,
  subject: keySubject(key),
  ip: context.ip,
  requestId: context.requestId,
  details,
});

/** A key was issued (operator) or created (by a key of the agent). */
export const apiKeyCreatedEvent = (key: ApiKeyRecord, context: SecurityContext): NewSecurityEvent =>
  eventOf('api_key.created', key, context, key.createdAt, {
    prefix: key.prefix,
    name: key.name,
    scopes: [...key.scopes],
    allowedIps: [...key.allowedIps],
    expiresAt: key.expiresAt?.toISOString() ?? null,
    createdByKeyId: key.createdByKeyId,
  });

/** A key was rolled: the subject is the rolled key; details name the new key and the overlap's end. */
export const apiKeyRolledEvent = (from: ApiKeyRecord, next: ApiKeyRecord, until: Date, context: SecurityContext): NewSecurityEvent =>
  eventOf('api_key.rolled', from, context, next.createdAt, {
    newKeyId: next.id,
    newKeyPrefix: next.prefix,
    validUntil: until.toISOString(),
  });

/** The revocation reason as the trail names it (`operator` and `revoked` are both `revoked`). */
const trailReason = (key: ApiKeyRecord): 'rotated' | 'leaked' | 'revoked' =>
  key.revokedReason === 'rotated' ? 'rotated' : key.revokedReason === 'leaked' ? 'leaked' : 'revoked';

/**
 * A key's revocation changed (`before` under the row lock, `after` as stored): once when it
 * leaves ACTIVE, again when a key revoked otherwise is found leaked. A roll's own scheduled
 * revocation is recorded by `api_key.rolled` and `api_key.revoked` (`rotated`) together.
 */
export const apiKeyRevokedEvents = (before: ApiKeyRecord, after: ApiKeyRecord, context: SecurityContext, at: Date): NewSecurityEvent[] =>
  after.status === 'REVOKED' && (before.status === 'ACTIVE' || before.revokedReason !== after.revokedReason)
    ? [
        eventOf('api_key.revoked', after, context, at, {
          reason: trailReason(after),
          ...(after.revokedReason === 'operator' ? { by: 'operator' } : {}),
          effectiveAt: after.revokedAt?.toISOString() ?? at.toISOString(),
        }),
      ]
    : [];

/** The holder of a key (or the operator) reported it leaked; details list every key that went with it. */
export const apiKeyLeakReportedEvent = (
  key: ApiKeyRecord,
  revokedKeyIds: readonly string[],
  context: SecurityContext,
  at: Date,
): NewSecurityEvent => eventOf('api_key.leak_reported', key, context, at, { revokedKeyIds: [...revokedKeyIds] });

/** A usable key was refused by its policy for one request. */
export const apiKeyRefusedEvent = (
  key: Pick<ApiKeyRecord, 'id' | 'agentId'>,
  refusal: { reason: KeyRefusalReason; requiredScope?: string | undefined },
  context: SecurityContext,
  at: Date,
): NewSecurityEvent => ({
  type: 'api_key.refused',
  owner: { kind: 'agent', id: key.agentId },
  occurredAt: at,
  actor: context.actor,
  subject: { kind: 'api_key', id: key.id },
  ip: context.ip,
  requestId: context.requestId,
  details:
    refusal.requiredScope === undefined ? { reason: refusal.reason } : { reason: refusal.reason, requiredScope: refusal.requiredScope },
});

/** Who manages webhook endpoints, as the trail names them: the calling key, or the tenant's client. */
export const callerContext = (
  caller: { readonly kind: 'agent'; readonly keyId: string } | { readonly kind: 'machine'; readonly clientId: string },
  origin: RequestOrigin = { ip: null, requestId: null },
): SecurityContext =>
  caller.kind === 'agent'
    ? apiKeyContext(caller.keyId, origin)
    : { actor: { kind: 'client', id: caller.clientId }, ip: origin.ip, requestId: origin.requestId };

/**
 * What the trail says of an endpoint's URL: its origin and path, never its query or fragment,
 * where a receiver often asks for a token of its own (`?token=…`), and no credential of ours
 * that a path may hold. The endpoint itself (`GET …/webhook-endpoints`, `webhooks:manage`)
 * keeps the whole URL; a reader of the trail (`events:read`) never needs more than where the
 * events go.
 */
export const endpointUrlForTrail = (url: string): string => {
  let shown: string;
  try {
    const parsed = new URL(url);
    shown = `${parsed.origin}${parsed.pathname}`;
  } catch {
    shown = url.split(/[?#]/, 1)[0] ?? '';
  }
  return redactSecrets(shown);
};

/**
 * An event as it is shown (the API, a webhook's `data`, the operator's listing): what is
 * recorded now, applied also to events recorded before the trail kept only that, which stay
 * as they were stored (the trail is append-only): an endpoint's URL without its query, and a
 * request id or address that has the form of a secret redacted.
 */
export const shownSecurityEvent = (e: SecurityEvent): SecurityEvent => {
  const url = e.details.url;
  const details =
    (e.type === 'webhook_endpoint.created' || e.type === 'webhook_endpoint.deleted') && typeof url === 'string'
      ? { ...e.details, url: endpointUrlForTrail(url) }
      : e.details;
  const requestId = e.requestId === null ? null : redactSecrets(e.requestId);
  const ip = e.ip === null ? null : redactSecrets(e.ip);
  return details === e.details && requestId === e.requestId && ip === e.ip ? e : { ...e, details, requestId, ip };
};

/** A webhook endpoint was registered (its origin and path, and its events; never its secret or query). */
export const webhookEndpointCreatedEvent = (
  endpoint: {
    readonly id: string;
    readonly owner: EventOwner;
    readonly url: string;
    readonly events: readonly string[];
    readonly createdAt: Date;
  },
  context: SecurityContext,
): NewSecurityEvent => ({
  type: 'webhook_endpoint.created',
  owner: endpoint.owner,
  occurredAt: endpoint.createdAt,
  actor: context.actor,
  subject: { kind: 'webhook_endpoint', id: endpoint.id },
  ip: context.ip,
  requestId: context.requestId,
  details: { url: endpointUrlForTrail(endpoint.url), events: [...endpoint.events] },
});

/** A webhook endpoint was deleted. */
export const webhookEndpointDeletedEvent = (
  owner: EventOwner,
  endpointId: string,
  context: SecurityContext,
  at: Date,
): NewSecurityEvent => ({
  type: 'webhook_endpoint.deleted',
  owner,
  occurredAt: at,
  actor: context.actor,
  subject: { kind: 'webhook_endpoint', id: endpointId },
  ip: context.ip,
  requestId: context.requestId,
  details: {},
});

/** The UTC minute an event falls in: the bucket of the once-per-minute rule. */
export const minuteBucket = (at: Date): number => Math.floor(at.getTime() / 60_000);

/** A call made by a tenant's backend (its OAuth client), from the request's origin. */
export const clientContext = (clientId: string, origin: RequestOrigin = { ip: null, requestId: null }): SecurityContext => ({
  actor: { kind: 'client', id: clientId },
  ip: origin.ip,
  requestId: origin.requestId,
});

/** A call made by a wallet user (how it was authenticated, and the client acting for it, if any). */
export const userContext = (
  user: { readonly userId: string; readonly amr?: readonly string[]; readonly actingClientId?: string | null },
  origin: RequestOrigin = { ip: null, requestId: null },
): SecurityContext => ({
  actor: {
    kind: 'user',
    id: user.userId,
    ...(user.amr === undefined ? {} : { amr: [...user.amr] }),
    ...(user.actingClientId === undefined || user.actingClientId === null ? {} : { act: { sub: user.actingClientId } }),
  },
  ip: origin.ip,
  requestId: origin.requestId,
});

/** The actor id of a sign-in attempt: nobody is authenticated yet (the subject names whose account it was). */
export const ANONYMOUS_ACTOR_ID = 'anonymous';

/**
 * A sign-in attempt not (yet) authenticated: a person at the login form, kind `user`, whose id is
 * `anonymous`, never the account's, since whoever typed the email may not be its holder.
 */
export const signInAttemptContext = (origin: RequestOrigin = { ip: null, requestId: null }): SecurityContext => ({
  actor: { kind: 'user', id: ANONYMOUS_ACTOR_ID },
  ip: origin.ip,
  requestId: origin.requestId,
});

/** One event of a tenant's trail. */
export const tenantEvent = (
  type: SecurityEventType,
  tenantId: string,
  subject: { readonly kind: string; readonly id: string },
  context: SecurityContext,
  at: Date,
  details: Record<string, unknown> = {},
): NewSecurityEvent => ({
  type,
  owner: { kind: 'tenant', id: tenantId },
  occurredAt: at,
  actor: context.actor,
  subject: { kind: subject.kind, id: subject.id },
  ip: context.ip,
  requestId: context.requestId,
  details,
});

/** One event about a wallet user: the user is its subject, and it belongs to the user's tenant's trail. */
export const walletUserEvent = (
  type: SecurityEventType,
  user: { readonly id: string; readonly tenantId: string },
  context: SecurityContext,
  at: Date,
  details: Record<string, unknown> = {},
): NewSecurityEvent => tenantEvent(type, user.tenantId, { kind: 'wallet_user', id: user.id }, context, at, details);

/** A wallet user was created (by the backend, the operator, or a delegated token's first use). */
export const walletUserCreatedEvent = (
  user: { readonly id: string; readonly tenantId: string; readonly externalUserRef: string; readonly createdAt: Date },
  context: SecurityContext,
): NewSecurityEvent => walletUserEvent('user.created', user, context, user.createdAt, { externalUserRef: user.externalUserRef });

/** The tenant's client secret was replaced (`previousValidUntil`: how long the old one still works). Never the secret. */
export const clientSecretRotated = (
  tenant: { readonly id: string; readonly clientId: string },
  previousValidUntil: Date | null,
  context: SecurityContext,
  at: Date = new Date(),
): NewSecurityEvent =>
  tenantEvent('client_secret.rotated', tenant.id, { kind: 'client', id: tenant.clientId }, context, at, {
    previousValidUntil: previousValidUntil?.toISOString() ?? null,
  });

/** The tenant's registered client keys (its JWK Set) were replaced: the `kid`s now registered, never the keys. */
export const clientJwksUpdated = (
  tenant: { readonly id: string; readonly clientId: string },
  jwks: ClientJwkSet | null,
  context: SecurityContext,
  at: Date = new Date(),
): NewSecurityEvent =>
  tenantEvent('client.jwks_updated', tenant.id, { kind: 'client', id: tenant.clientId }, context, at, {
    keys: jwks?.keys.length ?? 0,
    kids: kidsOf(jwks),
  });

/** A wallet user was disabled (`disabled`) or enabled again. */
export const userDisabledEvent = (
  user: { readonly id: string; readonly tenantId: string; readonly disabledAt?: Date | null },
  disabled: boolean,
  context: SecurityContext,
  at: Date = new Date(),
): NewSecurityEvent => walletUserEvent(disabled ? 'user.disabled' : 'user.enabled', user, context, disabled ? (user.disabledAt ?? at) : at);
