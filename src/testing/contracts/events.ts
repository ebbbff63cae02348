import type { EventLog } from '../../domain/webhooks/event-log.port.js';
import type { EventOwner, EventType } from '../../domain/webhooks/events.js';
import type { WebhookStore } from '../../domain/webhooks/webhook-store.port.js';
import { unique } from '../fixtures.js';

/**
 * What the event cases of a contract suite need: the webhook store and the outbox's read side of
 * the adapter family under test, the ones the stores record their events into (in memory, the
 * `MemoryWebhookStore` the stores were given; on PostgreSQL, `KnexWebhookStore` on the same
 * database). Without it a suite skips its event cases.
 */
export interface EmittedEvents {
  readonly webhooks: WebhookStore;
  readonly log: EventLog;
}

/** An event as the cases compare it: its type and the id of the resource it carries. */
export interface EventSeen {
  readonly type: EventType;
  readonly id: string;
}

/**
 * Subscribes `owner` to `types` with an endpoint of its own (the event log lists only the events
 * deliveries were queued for) and returns a reader of the events recorded for it since, oldest first.
 */
export async function listenAs(events: EmittedEvents, owner: EventOwner, types: readonly EventType[]): Promise<() => Promise<EventSeen[]>> {
  const endpoint = await events.webhooks.createEndpoint(
    {
      id: `whe_${unique()}${unique()}`,
      owner,
      url: 'https://hooks.example/in',
      events: types,
      description: null,
      status: 'active',
      createdAt: new Date(),
      sealedSecret: 'v1.sealed',
    },
    1_000,
  );
  if (endpoint === null) throw new Error('the webhook store refused the listening endpoint');
  return async () =>
    (await events.log.eventsFor(owner)).map((e) => {
      const body = JSON.parse(e.body) as { type: string; data: { id: string } };
      if (body.type !== e.type) throw new Error(`event ${e.id} is a ${e.type} whose body says ${body.type}`);
      return { type: e.type, id: body.data.id };
    });
}
