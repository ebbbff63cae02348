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
 * The read side of the outbox: what the stores' changes recorded. Storage keeps an event only
 * when an endpoint of its owner subscribed to its type at the time of the change (nobody would
 * receive the others), and only while deliveries of it are held; so these are the events that
 * deliveries were queued for. A change that was refused or rolled back recorded nothing.
 */
export interface EventLog {
  /** The owner's recorded events, oldest first (then by id). */
  eventsFor(owner: EventOwner): Promise<RecordedEvent[]>;
}
