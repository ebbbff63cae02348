import { checkKeyLimit, requireLineageWriter, revokedKey, rolledKey, type ApiKeyRecord, type RevokedReason } from './api-key.js';
import { apiKeyRevoked, type DomainEvent } from '../webhooks/events.js';
import {
  SYSTEM_CONTEXT,
  apiKeyCreatedEvent,
  apiKeyLeakReportedEvent,
  apiKeyRevokedEvents,
  apiKeyRolledEvent,
  type NewSecurityEvent,
  type SecurityContext,
} from '../security-events/security-event.js';

/**
 * Checks that `key` may be added, given the agent's keys that may still authenticate at its
 * creation (`liveKeys`) and, for a key made by a key, its creator as read under the lock its leak
 * report takes. Throws DomainError `invalid-api-key` or `too-many-keys`; returns the trail's record.
 */
export const keyAddition = (
  key: ApiKeyRecord,
  liveKeys: readonly ApiKeyRecord[],
  creator: ApiKeyRecord | null,
  context: SecurityContext = SYSTEM_CONTEXT,
): NewSecurityEvent[] => {
  if (key.createdByKeyId !== null) requireLineageWriter(creator, key.createdAt);
  checkKeyLimit([...liveKeys, key], key.createdAt);
  return [apiKeyCreatedEvent(key, context)];
};

/** A roll as decided: the key rolled (revoked as `rotated` at the overlap's end), the key it makes, and the trail's records. */
export interface KeyRoll {
  readonly rotated: ApiKeyRecord;
  readonly made: ApiKeyRecord;
  readonly securityEvents: NewSecurityEvent[];
}

/**
 * A roll of `from` (read under its lock; null when there is no such key) to `next`, its overlap
 * ending `until`, counted against the agent's keys that may still authenticate (`liveKeys`).
 * Null when the key cannot be rolled (unknown, or not ACTIVE); throws DomainError
 * `invalid-api-key` when `from` may no longer write on its lineage, `too-many-keys` past the bound.
 */
export const keyRoll = (
  from: ApiKeyRecord | null,
  next: ApiKeyRecord,
  until: Date,
  liveKeys: readonly ApiKeyRecord[],
  context: SecurityContext = SYSTEM_CONTEXT,
): KeyRoll | null => {
  if (from === null) return null;
  const writer = requireLineageWriter(from, next.createdAt);
  if (writer.status !== 'ACTIVE') return null;
  const rotated: ApiKeyRecord = { ...writer, status: 'REVOKED', revokedReason: 'rotated', revokedAt: until };
  const made = rolledKey(next, writer);
  checkKeyLimit([...liveKeys.map((k) => (k.id === writer.id ? rotated : k)), made], next.createdAt);
  return {
    rotated,
    made,
    securityEvents: [apiKeyRolledEvent(rotated, made, until, context), ...apiKeyRevokedEvents(writer, rotated, context, next.createdAt)],
  };
};

/**
 * A revocation as decided (the rule of `revokedKey`): the key as it was and as it is to be
 * stored, and what changed for the webhook outbox and the trail (nothing when `after` is `before`).
 */
export interface KeyRevocation {
  readonly before: ApiKeyRecord;
  readonly after: ApiKeyRecord;
  readonly events: DomainEvent[];
  readonly securityEvents: NewSecurityEvent[];
}

/** The revocation of `key` (as read under its lock) for `reason` at `at`. */
export const keyRevocation = (
  key: ApiKeyRecord,
  reason: RevokedReason,
  at: Date,
  context: SecurityContext = SYSTEM_CONTEXT,
): KeyRevocation => {
  const after = revokedKey(key, reason, at);
  return { before: key, after, events: apiKeyRevoked(key, after, at), securityEvents: apiKeyRevokedEvents(key, after, context, at) };
};

/**
 * What the trail records of a leak report of the key `root` revoked, with the keys of its lineage
 * revoked with it (`rolled`): `api_key.leak_reported` once, nothing for a key reported already.
 */
export const leakReportEvents = (
  root: KeyRevocation,
  rolled: readonly ApiKeyRecord[],
  at: Date,
  context: SecurityContext = SYSTEM_CONTEXT,
): NewSecurityEvent[] =>
  root.before.revokedReason === 'leaked'
    ? []
    : [
        apiKeyLeakReportedEvent(
          root.after,
          rolled.map((k) => k.id),
          context,
          at,
        ),
      ];
