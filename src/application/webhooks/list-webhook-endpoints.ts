import type { Page } from '../../domain/shared/page.js';
import type { WebhookEndpoint } from '../../domain/webhooks/endpoint.js';
import type { EventOwner } from '../../domain/webhooks/events.js';
import type { WebhookStore } from '../../domain/webhooks/webhook-store.port.js';
import { cursorOf, pageOf } from './webhook-queries.js';

/** The owner's endpoints, newest first, one keyset page at a time. */
export class ListWebhookEndpoints {
  constructor(private readonly store: WebhookStore) {}

  async execute(owner: EventOwner, query: { cursor?: string | undefined; limit: number }): Promise<Page<WebhookEndpoint>> {
    return pageOf(await this.store.listEndpoints(owner, cursorOf(query.cursor), query.limit + 1), query.limit);
  }
}
