import { pageOf, pageRequest, type Page, type PageQuery } from '../../domain/shared/page.js';
import type { WebhookEndpoint } from '../../domain/webhooks/endpoint.js';
import { webhookOwnerOf, type WebhookCaller } from '../../domain/webhooks/owner.js';
import type { WebhookStore } from '../../domain/webhooks/webhook-store.port.js';

/** The caller's endpoints, newest first, one keyset page at a time. */
export class ListWebhookEndpoints {
  constructor(private readonly store: WebhookStore) {}

  async execute(caller: WebhookCaller, query: PageQuery): Promise<Page<WebhookEndpoint>> {
    const { after, limit } = pageRequest(query);
    return pageOf(await this.store.listEndpoints(webhookOwnerOf(caller), after, limit + 1), limit);
  }
}
