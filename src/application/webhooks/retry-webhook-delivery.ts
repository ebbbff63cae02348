import { DomainError } from '../../domain/shared/errors.js';
import type { WebhookDelivery } from '../../domain/webhooks/endpoint.js';
import { webhookOwnerOf, type WebhookCaller } from '../../domain/webhooks/owner.js';
import type { WebhookStore } from '../../domain/webhooks/webhook-store.port.js';
import { endpointNotFound } from './webhook-endpoint-lookup.js';

/** Makes one of the caller's deliveries due now, whatever its status, and wakes the worker. */
export class RetryWebhookDelivery {
  constructor(
    private readonly store: WebhookStore,
    private readonly wake: () => void,
  ) {}

  async execute(caller: WebhookCaller, endpointId: string, deliveryId: string): Promise<WebhookDelivery> {
    const owner = webhookOwnerOf(caller);
    if ((await this.store.findEndpoint(owner, endpointId)) === null) throw endpointNotFound();
    const delivery = await this.store.retryNow(owner, endpointId, deliveryId);
    if (delivery === null) throw new DomainError('webhook-delivery-not-found');
    this.wake();
    return delivery;
  }
}
