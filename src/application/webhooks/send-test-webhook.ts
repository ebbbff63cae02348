import type { Clock } from '../../domain/shared/clock.port.js';
import { DomainError } from '../../domain/shared/errors.js';
import type { IdGenerator } from '../../domain/shared/ids.port.js';
import type { WebhookDelivery } from '../../domain/webhooks/endpoint.js';
import { eventTypesFor, type EventType } from '../../domain/webhooks/events.js';
import { webhookOwnerOf, type WebhookCaller } from '../../domain/webhooks/owner.js';
import type { SampleEventData } from '../../domain/webhooks/webhook-ports.port.js';
import type { WebhookStore } from '../../domain/webhooks/webhook-store.port.js';
import { endpointNotFound } from './webhook-endpoint-lookup.js';

/**
 * Sends one of the caller's endpoints a sample event of one of the caller's types, marked
 * `"test": true`: a delivery like any other (signed with the endpoint's secret, retried, listed
 * with its deliveries), whose event the feed never serves. The endpoint need not subscribe to it.
 */
export class SendTestWebhook {
  constructor(
    private readonly store: WebhookStore,
    private readonly sample: SampleEventData,
    private readonly ids: IdGenerator,
    private readonly clock: Clock,
    private readonly wake: () => void,
  ) {}

  async execute(caller: WebhookCaller, endpointId: string, type: string): Promise<WebhookDelivery> {
    const owner = webhookOwnerOf(caller);
    const allowed = eventTypesFor(owner.kind);
    if (!(allowed as readonly string[]).includes(type)) {
      throw new DomainError('invalid-request', {
        message: `Unknown event type ${type}.`,
        details: { errors: [{ path: 'type', message: `must be one of ${allowed.join(', ')}` }] },
      });
    }
    const at = this.clock.now();
    const eventType = type as EventType;
    // A sandbox agent's sample order is a sandbox one, as every order it gets is.
    const data = await this.sample(eventType, at, caller.kind === 'agent' ? caller.livemode : true);
    const body = JSON.stringify({ type, timestamp: at.toISOString(), data, test: true });
    const delivery = await this.store.queueTestDelivery(owner, endpointId, {
      id: this.ids.next('evt'),
      type: eventType,
      body,
      createdAt: at,
    });
    if (delivery === null) throw endpointNotFound();
    this.wake();
    return delivery;
  }
}
