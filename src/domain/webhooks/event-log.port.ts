import type { EventOwner, EventType } from './events.js';

/** An event as storage recorded it, in the transaction of its change (its outbox row). */
export interface RecordedEvent {
  /** `evt_…`: the `webhook-id` of every delivery of it. */
  readonly id: string;
  readonly type: EventType;
  readonly owner: EventOwner;
  /** The exact JSON body every delivery sends: `{ type, timestamp, data }`, `data` the resource as the API shows it. */
  readonly body: string;
  readonly occurredAt: Date;
}

/**
 * The read side of the outbox for tests of the stores: what their changes recorded for delivery.
 * Storage keeps every event of an owner (the event feed, `WebhookStore.feed`, serves them all);
 * these are the ones that deliveries were queued for (an endpoint of the owner subscribed to the
 * type at the time of the change), while one of the deliveries is held; test events are not.
 * A change that was refused or rolled back recorded nothing.
 */
export interface EventLog {
  /** The owner's recorded events, oldest first (then by id). */
  eventsFor(owner: EventOwner): Promise<RecordedEvent[]>;
}
