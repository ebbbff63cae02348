import type { EventOwner } from '../../domain/webhooks/events.js';
import type { WebhookStore } from '../../domain/webhooks/webhook-store.port.js';
import { endpointNotFound } from './webhook-endpoint-lookup.js';

/** Deletes one of the owner's endpoints: nothing more is sent to it. */
export class DeleteWebhookEndpoint {
  constructor(private readonly store: WebhookStore) {}

  async execute(owner: EventOwner, endpointId: string): Promise<void> {
    if (!(await this.store.deleteEndpoint(owner, endpointId))) throw endpointNotFound();
  }
}
