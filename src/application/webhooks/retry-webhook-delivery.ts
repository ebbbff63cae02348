import { DomainError } from '../../domain/shared/errors.js';
import type { WebhookDelivery } from '../../domain/webhooks/endpoint.js';
import type { EventOwner } from '../../domain/webhooks/events.js';
import type { WebhookStore } from '../../domain/webhooks/webhook-store.port.js';
import { endpointNotFound } from './webhook-endpoint-lookup.js';

/** Makes one of the owner's deliveries due now, whatever its status, and wakes the worker. */
export class RetryWebhookDelivery {
  constructor(
    private readonly store: WebhookStore,
    private readonly wake: () => void,
  ) {}

  async execute(owner: EventOwner, endpointId: string, deliveryId: string): Promise<WebhookDelivery> {
    if ((await this.store.findEndpoint(owner, endpointId)) === null) throw endpointNotFound();
    const delivery = await this.store.retryNow(owner, endpointId, deliveryId);
    if (delivery === null) throw new DomainError('webhook-delivery-not-found');
    this.wake();
    return delivery;
  }
}
