import type { Page } from '../../domain/shared/page.js';
import type { WebhookDelivery } from '../../domain/webhooks/endpoint.js';
import type { EventOwner } from '../../domain/webhooks/events.js';
import type { WebhookStore } from '../../domain/webhooks/webhook-store.port.js';
import { endpointNotFound, cursorOf, pageOf } from './webhook-queries.js';

/** The deliveries of one of the owner's endpoints, newest first. */
export class ListWebhookDeliveries {
  constructor(private readonly store: WebhookStore) {}

  async execute(
    owner: EventOwner,
    endpointId: string,
    query: { cursor?: string | undefined; limit: number },
  ): Promise<Page<WebhookDelivery>> {
    const rows = await this.store.listDeliveries(owner, endpointId, cursorOf(query.cursor), query.limit + 1);
    if (rows === null) throw endpointNotFound();
    return pageOf(rows, query.limit);
  }
}
