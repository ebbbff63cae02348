import { toWalletUserView } from '../../application/wallet/wallet-user-view.js';
import { keyLivemode, type ApiKeyRecord } from '../../domain/identity/api-key.js';
import type { DomainEvent } from '../../domain/webhooks/events.js';
import { TimeSortableIds } from '../crypto/node-crypto.js';
import { authorizationJson, orderView, securityEventView, transactionJson } from '../json-views.js';

/** An event as the outbox stores it: the body every attempt sends (with its owner’s mode, `bodyWithLivemode`). */
export interface OutboxRecord {
  readonly id: string;
  readonly owner_kind: 'agent' | 'tenant';
  readonly owner_id: string;
  readonly type: DomainEvent['type'];
  readonly body: string;
  readonly created_at: string;
}

/** What the API shows of a key: metadata only, never its hash. */
export const keyView = (k: ApiKeyRecord) => ({
  id: k.id,
  prefix: k.prefix,
  status: k.status,
  createdAt: k.createdAt.toISOString(),
  expiresAt: k.expiresAt?.toISOString() ?? null,
  revokedAt: k.revokedAt?.toISOString() ?? null,
  revokedReason: k.revokedReason,
  livemode: keyLivemode(k.prefix),
});

/** The resource an event carries, as the API returns it. */
export function eventData(e: DomainEvent): unknown {
  switch (e.type) {
    case 'order.held':
    case 'order.pending':
    case 'order.confirmed':
    case 'order.rejected':
    case 'order.expired':
    case 'order.released':
    case 'order.cancelled':
      return { ...orderView(e.order), previousStatus: e.previousStatus };
    case 'order.voucher_redeemed':
      // A redemption changes no status: the one before it is the order's own (CONFIRMED).
      return { ...orderView(e.order), previousStatus: e.order.status, voucherRedeemedAt: e.redemption.redeemedAt.toISOString() };
    case 'api_key.revoked':
    case 'api_key.expiring':
      return keyView(e.key);
    case 'transaction.created':
      return transactionJson(e.transaction);
    case 'authorization.created':
    case 'authorization.captured':
    case 'authorization.voided':
    case 'authorization.expired':
      return { ...authorizationJson(e.authorization, e.occurredAt), capture: e.capture === null ? null : transactionJson(e.capture) };
    case 'agent_account.low_balance':
      return { agentId: e.agentId, billing: e.billing };
    case 'wallet_user.created': {
      const u = toWalletUserView(e.user);
      return { ...u, createdAt: u.createdAt.toISOString() };
    }
    default:
      return securityEventView(e.securityEvent);
  }
}

/**
 * An event's body as it is sent and served: the stored body (`{ type, timestamp, data }`, made by
 * `outboxRecords`) with its owner's `livemode`, last and in `data` (the resource as the API
 * answers it, which carries it). The owner's mode is read when the body goes out, so the stores
 * that record events need not know it.
 */
export function bodyWithLivemode(body: string, livemode: boolean): string {
  const event = JSON.parse(body) as { data?: unknown };
  const data = event.data;
  const resource = typeof data === 'object' && data !== null && !Array.isArray(data) ? { ...data, livemode } : data;
  return JSON.stringify({ ...event, data: resource, livemode });
}

const ids = new TimeSortableIds();

/** Gives each event its id (`evt_…`, the `webhook-id` of every attempt) and its JSON body. */
export function outboxRecords(events: readonly DomainEvent[]): OutboxRecord[] {
  return events.map((e) => ({
    id: ids.next('evt'),
    owner_kind: e.owner.kind,
    owner_id: e.owner.id,
    type: e.type,
    body: JSON.stringify({ type: e.type, timestamp: e.occurredAt.toISOString(), data: eventData(e) }),
    created_at: e.occurredAt.toISOString(),
  }));
}
