import { webhookOwnerOf, type WebhookCaller } from '../../domain/webhooks/owner.js';
import type { WebhookStore } from '../../domain/webhooks/webhook-store.port.js';
import { endpointNotFound } from './webhook-endpoint-lookup.js';

/** Deletes one of the caller's endpoints: nothing more is sent to it. */
export class DeleteWebhookEndpoint {
  constructor(private readonly store: WebhookStore) {}

  async execute(caller: WebhookCaller, endpointId: string): Promise<void> {
    if (!(await this.store.deleteEndpoint(webhookOwnerOf(caller), endpointId))) throw endpointNotFound();
  }
}
