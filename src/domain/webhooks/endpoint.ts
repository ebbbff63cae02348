import { DomainError } from '../shared/errors.js';
import { eventTypesFor, type EventOwner, type EventType } from './events.js';

/** A URL that receives an owner's events. The signing secret is stored sealed, never in plaintext. */
export interface WebhookEndpoint {
  readonly id: string;
  readonly owner: EventOwner;
  readonly url: string;
  readonly events: readonly EventType[];
  readonly description: string | null;
  readonly status: 'active';
  readonly createdAt: Date;
}

/** A stored endpoint with its sealed secret (only the delivery worker opens it). */
export interface StoredWebhookEndpoint extends WebhookEndpoint {
  readonly sealedSecret: string;
}

export type DeliveryStatus = 'pending' | 'delivered' | 'failed';

/** One event sent (or to be sent) to one endpoint, with its attempts so far. */
export interface WebhookDelivery {
  readonly id: string;
  readonly endpointId: string;
  readonly eventId: string;
  readonly type: EventType;
  readonly status: DeliveryStatus;
  readonly attempts: number;
  readonly lastStatusCode: number | null;
  readonly lastAttemptAt: Date | null;
  /** When the next attempt is due; null once delivered or failed. */
  readonly nextAttemptAt: Date | null;
  readonly createdAt: Date;
}

/** Bounds on what an owner registers. */
export const WEBHOOK_LIMITS = { endpointsPerOwner: 10, urlLength: 2048, descriptionLength: 256 } as const;

/** The default backoff between attempts, in seconds (`WEBHOOK_RETRY_SCHEDULE`). */
export const DEFAULT_RETRY_SCHEDULE: readonly number[] = [5, 300, 1800, 7200, 18000, 36000, 36000];

/**
 * After attempt number `attempts` failed: seconds until the next one, or null when the schedule
 * is used up and the delivery is `failed`. With n delays there are n + 1 attempts in all.
 */
export const retryDelayAfter = (attempts: number, schedule: readonly number[]): number | null =>
  attempts >= 1 && attempts <= schedule.length ? schedule[attempts - 1]! : null;

/** Checks the events an owner asks for: at least one, each one of the owner's kind; duplicates dropped. */
export const checkSubscribedEvents = (owner: EventOwner, events: readonly string[]): EventType[] => {
  const allowed = eventTypesFor(owner.kind);
  const bad = events.filter((e) => !(allowed as readonly string[]).includes(e));
  if (events.length === 0 || bad.length > 0) {
    throw new DomainError('invalid-request', {
      message: `events must list one or more of ${allowed.join(', ')}.`,
      details: {
        errors: [{ path: 'events', message: bad.length > 0 ? `unknown for this caller: ${bad.join(', ')}` : 'must not be empty' }],
      },
    });
  }
  return [...new Set(events)] as EventType[];
};

/** The signing secret's format (Standard Webhooks): `whsec_` + base64 of 32 random bytes. */
export const WEBHOOK_SECRET_PREFIX = 'whsec_';
