import type { WebhookEndpoint } from '../../domain/webhooks/endpoint.js';
import { webhookOwnerOf, type WebhookCaller } from '../../domain/webhooks/owner.js';
import type { WebhookStore } from '../../domain/webhooks/webhook-store.port.js';
import { endpointNotFound } from './webhook-endpoint-lookup.js';

/** One of the caller's endpoints (without its secret); another owner's is not found. */
export class GetWebhookEndpoint {
  constructor(private readonly store: WebhookStore) {}

  async execute(caller: WebhookCaller, endpointId: string): Promise<WebhookEndpoint> {
    const endpoint = await this.store.findEndpoint(webhookOwnerOf(caller), endpointId);
    if (endpoint === null) throw endpointNotFound();
    return endpoint;
  }
}
