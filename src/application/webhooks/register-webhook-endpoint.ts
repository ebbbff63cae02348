import { callerContext, type RequestOrigin } from '../../domain/security-events/security-event.js';
import type { Clock } from '../../domain/shared/clock.port.js';
import { DomainError } from '../../domain/shared/errors.js';
import type { IdGenerator } from '../../domain/shared/ids.port.js';
import type { RandomSource } from '../../domain/shared/secrets.port.js';
import { checkSubscribedEvents, WEBHOOK_LIMITS, WEBHOOK_SECRET_PREFIX, type WebhookEndpoint } from '../../domain/webhooks/endpoint.js';
import { webhookOwnerOf, type WebhookCaller } from '../../domain/webhooks/owner.js';
import type { SecretSealer, WebhookUrlGuard } from '../../domain/webhooks/webhook-ports.port.js';
import type { WebhookStore } from '../../domain/webhooks/webhook-store.port.js';

/**
 * Registers an endpoint for some of the caller's events (the caller owns it). The URL is checked (scheme and the
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
    caller: WebhookCaller,
    input: { url: string; events: readonly string[]; description?: string | undefined },
    origin?: RequestOrigin,
  ): Promise<WebhookEndpoint & { secret: string }> {
    const owner = webhookOwnerOf(caller);
    const events = checkSubscribedEvents(owner, input.events);
    await this.guard.check(input.url, { owner });
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
      callerContext(caller, origin),
    );
    if (created === null) {
      throw new DomainError('too-many-webhook-endpoints', {
        message: `At most ${WEBHOOK_LIMITS.endpointsPerOwner} webhook endpoints; delete one first.`,
      });
    }
    return { ...created, secret };
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
