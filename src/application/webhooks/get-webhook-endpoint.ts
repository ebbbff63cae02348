import type { WebhookEndpoint } from '../../domain/webhooks/endpoint.js';
import type { EventOwner } from '../../domain/webhooks/events.js';
import type { WebhookStore } from '../../domain/webhooks/webhook-store.port.js';
import { endpointNotFound } from './webhook-endpoint-lookup.js';

/** One of the owner's endpoints (without its secret). */
export class GetWebhookEndpoint {
  constructor(private readonly store: WebhookStore) {}

  async execute(owner: EventOwner, endpointId: string): Promise<WebhookEndpoint> {
    const endpoint = await this.store.findEndpoint(owner, endpointId);
    if (endpoint === null) throw endpointNotFound();
    return endpoint;
  }
}
