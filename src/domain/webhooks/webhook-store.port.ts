import type { SecurityContext } from '../security-events/security-event.js';
import type { Cursor } from '../shared/page.js';
import type { StoredWebhookEndpoint, WebhookDelivery, WebhookEndpoint } from './endpoint.js';
import type { EventOwner, EventType } from './events.js';

/** A delivery taken by one worker for one attempt, with what it takes to send it. */
export interface ClaimedDelivery {
  readonly id: string;
  readonly eventId: string;
  readonly type: EventType;
  /** The exact JSON body, the same on every attempt. */
  readonly body: string;
  readonly url: string;
  /** The endpoint's owner (its lookups are bounded per owner). */
  readonly owner: EventOwner;
  /** Whether the owner is live (false: a sandbox agent or tenant), told in the body as it is sent. */
  readonly livemode: boolean;
  readonly sealedSecret: string;
  /** This attempt's number (1 for the first). */
  readonly attempt: number;
  /** Proves the claim is still this worker's when it reports the outcome. */
  readonly lease: string;
}

/** One event as the feed serves it: its id (the `webhook-id` of its deliveries) and the body they send. */
export interface FeedEvent {
  readonly id: string;
  readonly type: EventType;
  /** The body as recorded (`{ type, timestamp, data }`): the feed and every delivery add the owner’s `livemode` to it. */
  readonly body: string;
}

/** A sample event made for a test delivery: sent like any event, never in the feed. */
export interface TestEvent {
  readonly id: string;
  readonly type: EventType;
  readonly body: string;
  readonly createdAt: Date;
}

/** How an attempt ended. */
export interface AttemptOutcome {
  readonly delivered: boolean;
  /** The receiver's HTTP status; null when none came (refused address, timeout, network error). */
  readonly statusCode: number | null;
  /** When not delivered: seconds until the next attempt, or null to mark the delivery `failed`. */
  readonly retryInSeconds: number | null;
}

/**
 * Webhook endpoints and their deliveries. Every read and change takes the owner, so no adapter
 * returns or touches another owner's endpoint or delivery (they are "not found": null/false).
 * Deliveries are created by storage itself, in the transaction of the change an event reports,
 * one per active endpoint of the owner subscribed to the event's type.
 */
export interface WebhookStore {
  /**
   * Stores the endpoint unless the owner already has `maxPerOwner` of them (then returns null);
   * the count and the insert are one atomic step, so concurrent registrations cannot exceed it.
   * With `trail`, records `webhook_endpoint.created` in the security trail in the same transaction.
   */
  createEndpoint(endpoint: StoredWebhookEndpoint, maxPerOwner: number, trail?: SecurityContext): Promise<WebhookEndpoint | null>;
  /** The owner's endpoint, or null. */
  findEndpoint(owner: EventOwner, endpointId: string): Promise<WebhookEndpoint | null>;
  /** The owner's endpoints, newest first, strictly after `after`, at most `limit`. */
  listEndpoints(owner: EventOwner, after: Cursor | null, limit: number): Promise<WebhookEndpoint[]>;
  /**
   * Deletes the owner's endpoint and its deliveries (none is attempted again); false when not
   * found. With `trail`, records `webhook_endpoint.deleted` in the same transaction.
   */
  deleteEndpoint(owner: EventOwner, endpointId: string, trail?: { readonly context: SecurityContext; readonly at: Date }): Promise<boolean>;
  /** The deliveries of the owner's endpoint, newest first; null when the endpoint is not the owner's. */
  listDeliveries(owner: EventOwner, endpointId: string, after: Cursor | null, limit: number): Promise<WebhookDelivery[] | null>;
  /**
   * Stores `event` as a test event (never served by the feed) and queues one delivery of it to
   * the owner's endpoint, due now, in one step; null when the owner has no such endpoint.
   */
  queueTestDelivery(owner: EventOwner, endpointId: string, event: TestEvent): Promise<WebhookDelivery | null>;
  /**
   * The owner's events in feed order (oldest first), strictly after the event `after` (from the
   * first when null), only those of `types` when given, at most `limit`. Null when `after` is not
   * an event of the owner's feed (unknown, purged, another owner's, or a test event).
   *
   * Every event of the owner is stored, subscribed to or not, with the deliveries' ids, for as
   * long as deliveries are (`purgeDeliveries`). The order is one no later commit can insert into:
   * a page never holds an event of a transaction that could still commit before it, so a reader
   * that pages on with the last id it got neither repeats nor skips an event.
   */
  feed(owner: EventOwner, after: string | null, types: readonly EventType[] | null, limit: number): Promise<FeedEvent[] | null>;
  /**
   * Makes the delivery due now (pending again if it had been delivered or failed); null when the
   * owner has no such endpoint or the endpoint no such delivery.
   */
  retryNow(owner: EventOwner, endpointId: string, deliveryId: string): Promise<WebhookDelivery | null>;
  /**
   * Takes up to `limit` due deliveries for one attempt each, counting the attempt, and hides them
   * from every other claimer (any instance) for `leaseSeconds`. A delivery whose worker died is
   * claimed again once its lease has passed, so delivery is at least once.
   */
  claimDue(limit: number, leaseSeconds: number): Promise<ClaimedDelivery[]>;
  /** Records the attempt's outcome, only while the claim's lease is still the delivery's. */
  finish(claim: ClaimedDelivery, outcome: AttemptOutcome): Promise<void>;
  /**
   * Deletes up to `batch` delivered or failed deliveries whose last attempt was before
   * `olderThan` (never a pending one, nor one a claimer or a retry holds at that moment), and up
   * to `batch` stored events older than `olderThan` left without any delivery (so an event stays
   * in the feed as long as its deliveries, and at least until `olderThan` passes it). One bounded
   * statement each, safe while other instances purge, claim and retry; returns what it removed.
   */
  purgeDeliveries(olderThan: Date, batch: number): Promise<PurgedDeliveries>;
  /**
   * What purging everything past `olderThan` would remove now: the delivered and failed
   * deliveries last attempted before it, and the events older than it that none other is left for.
   */
  countPurgeable(olderThan: Date): Promise<PurgedDeliveries>;
}

/** What one purge batch removed. */
export interface PurgedDeliveries {
  readonly deliveries: number;
  readonly events: number;
}
