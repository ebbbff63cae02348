import type { Clock } from '../../domain/shared/clock.port.js';
import { conflict, invalid, notFound } from '../../domain/shared/errors.js';
import type { IdGenerator } from '../../domain/shared/ids.port.js';
import { decodeCursor, encodeCursor, type Cursor, type Page } from '../../domain/shared/page.js';
import type { RandomSource } from '../../domain/shared/secrets.port.js';
import {
  checkSubscribedEvents,
  WEBHOOK_LIMITS,
  WEBHOOK_SECRET_PREFIX,
  type WebhookDelivery,
  type WebhookEndpoint,
} from '../../domain/webhooks/endpoint.js';
import type { EventOwner } from '../../domain/webhooks/events.js';
import type { SecretSealer, WebhookUrlGuard } from '../../domain/webhooks/webhook-ports.port.js';
import type { WebhookStore } from '../../domain/webhooks/webhook-store.port.js';

const endpointNotFound = () => notFound('webhook-endpoint-not-found', 'No such webhook endpoint.');

const cursorOf = (cursor: string | undefined): Cursor | null => {
  if (cursor === undefined) return null;
  const after = decodeCursor(cursor);
  if (after === null)
    throw invalid('invalid-request', 'The cursor is not valid.', {
      errors: [{ path: 'cursor', message: 'is not a cursor this service issued' }],
    });
  return after;
};

const pageOf = <T extends { createdAt: Date; id: string }>(rows: readonly T[], limit: number): Page<T> => {
  const data = rows.slice(0, limit);
  const last = data[data.length - 1];
  return { data, nextCursor: rows.length > limit && last !== undefined ? encodeCursor({ createdAt: last.createdAt, id: last.id }) : null };
};

/**
 * Registers an endpoint for some of the owner's events. The URL is checked (scheme and the
 * addresses its host resolves to) before anything is stored; the secret is made here, sealed
 * for storage, and returned this once.
 */
export class RegisterWebhookEndpoint {
  constructor(
    private readonly store: WebhookStore,
    private readonly guard: WebhookUrlGuard,
    private readonly sealer: SecretSealer,
    private readonly random: RandomSource,
    private readonly ids: IdGenerator,
    private readonly clock: Clock,
  ) {}

  async execute(
    owner: EventOwner,
    input: { url: string; events: readonly string[]; description?: string | undefined },
  ): Promise<WebhookEndpoint & { secret: string }> {
    const events = checkSubscribedEvents(owner, input.events);
    await this.guard.check(input.url);
    const secret = `${WEBHOOK_SECRET_PREFIX}${toBase64(this.random.bytes(32))}`;
    const created = await this.store.createEndpoint(
      {
        id: this.ids.next('whe'),
        owner,
        url: input.url,
        events,
        description: input.description ?? null,
        status: 'active',
        createdAt: this.clock.now(),
        sealedSecret: this.sealer.seal(secret),
      },
      WEBHOOK_LIMITS.endpointsPerOwner,
    );
    if (created === null) {
      throw conflict('too-many-webhook-endpoints', `At most ${WEBHOOK_LIMITS.endpointsPerOwner} webhook endpoints; delete one first.`);
    }
    return { ...created, secret };
  }
}

/** The owner's endpoints, newest first, one keyset page at a time. */
export class ListWebhookEndpoints {
  constructor(private readonly store: WebhookStore) {}

  async execute(owner: EventOwner, query: { cursor?: string | undefined; limit: number }): Promise<Page<WebhookEndpoint>> {
    return pageOf(await this.store.listEndpoints(owner, cursorOf(query.cursor), query.limit + 1), query.limit);
  }
}

/** One of the owner's endpoints (without its secret). */
export class GetWebhookEndpoint {
  constructor(private readonly store: WebhookStore) {}

  async execute(owner: EventOwner, endpointId: string): Promise<WebhookEndpoint> {
    const endpoint = await this.store.findEndpoint(owner, endpointId);
    if (endpoint === null) throw endpointNotFound();
    return endpoint;
  }
}

/** Deletes one of the owner's endpoints: nothing more is sent to it. */
export class DeleteWebhookEndpoint {
  constructor(private readonly store: WebhookStore) {}

  async execute(owner: EventOwner, endpointId: string): Promise<void> {
    if (!(await this.store.deleteEndpoint(owner, endpointId))) throw endpointNotFound();
  }
}

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

/** Makes one of the owner's deliveries due now, whatever its status, and wakes the worker. */
export class RetryWebhookDelivery {
  constructor(
    private readonly store: WebhookStore,
    private readonly wake: () => void,
  ) {}

  async execute(owner: EventOwner, endpointId: string, deliveryId: string): Promise<WebhookDelivery> {
    if ((await this.store.findEndpoint(owner, endpointId)) === null) throw endpointNotFound();
    const delivery = await this.store.retryNow(owner, endpointId, deliveryId);
    if (delivery === null) throw notFound('webhook-delivery-not-found', 'No such delivery of this endpoint.');
    this.wake();
    return delivery;
  }
}

const B64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';

/** Standard base64 with padding (the secret format of Standard Webhooks). */
function toBase64(bytes: Uint8Array): string {
  let out = '';
  for (let i = 0; i < bytes.length; i += 3) {
    const n = (bytes[i]! << 16) | ((bytes[i + 1] ?? 0) << 8) | (bytes[i + 2] ?? 0);
    out += B64[(n >> 18) & 63]! + B64[(n >> 12) & 63]!;
    out += i + 1 < bytes.length ? B64[(n >> 6) & 63]! : '=';
    out += i + 2 < bytes.length ? B64[n & 63]! : '=';
  }
  return out;
}
