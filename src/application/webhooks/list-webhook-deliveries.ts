import { pageOf, pageRequest, type Page, type PageQuery } from '../../domain/shared/page.js';
import type { WebhookDelivery } from '../../domain/webhooks/endpoint.js';
import { webhookOwnerOf, type WebhookCaller } from '../../domain/webhooks/owner.js';
import type { WebhookStore } from '../../domain/webhooks/webhook-store.port.js';
import { endpointNotFound } from './webhook-endpoint-lookup.js';

/** The deliveries of one of the caller's endpoints, newest first. */
export class ListWebhookDeliveries {
  constructor(private readonly store: WebhookStore) {}

  async execute(caller: WebhookCaller, endpointId: string, query: PageQuery): Promise<Page<WebhookDelivery>> {
    const { after, limit } = pageRequest(query);
    const rows = await this.store.listDeliveries(webhookOwnerOf(caller), endpointId, after, limit + 1);
    if (rows === null) throw endpointNotFound();
    return pageOf(rows, limit);
  }
}
