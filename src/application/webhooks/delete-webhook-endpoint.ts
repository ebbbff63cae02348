import { callerContext, type RequestOrigin } from '../../domain/security-events/security-event.js';
import type { Clock } from '../../domain/shared/clock.port.js';
import { webhookOwnerOf, type WebhookCaller } from '../../domain/webhooks/owner.js';
import type { WebhookStore } from '../../domain/webhooks/webhook-store.port.js';
import { endpointNotFound } from './webhook-endpoint-lookup.js';

/** Deletes one of the caller's endpoints: nothing more is sent to it. */
export class DeleteWebhookEndpoint {
  constructor(
    private readonly store: WebhookStore,
    private readonly clock: Clock = { now: () => new Date() },
  ) {}

  /** Records `webhook_endpoint.deleted` in the caller's trail with the deletion. */
  async execute(caller: WebhookCaller, endpointId: string, origin?: RequestOrigin): Promise<void> {
    const trail = { context: callerContext(caller, origin), at: this.clock.now() };
    if (!(await this.store.deleteEndpoint(webhookOwnerOf(caller), endpointId, trail))) throw endpointNotFound();
  }
}
