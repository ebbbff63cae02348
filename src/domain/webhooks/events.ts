import { ORDER_EVENT_OF_STATUS, ORDER_EVENT_TYPES, type Order, type OrderEventType, type OrderStatus } from '../booking/order.js';
import type { ApiKeyRecord } from '../identity/api-key.js';
import type { VoucherRedemption } from '../booking/voucher-redemptions.port.js';
import type { WalletUser } from '../identity/tenant.js';
import type { AgentBilling } from '../billing/agent-account.js';
import type { Transaction } from '../wallet/transaction.js';
import { AUTHORIZATION_OWNER, type PendingTransfer } from '../wallet/pending-transfer.js';
import { BOOKING_SECURITY_EVENT_TYPES, WALLET_SECURITY_EVENT_TYPES, type SecurityEvent } from '../security-events/security-event.js';

/**
 * The security trail's types an agent's endpoints may subscribe to: every booking type.
 * `api_key.revoked` was an event type before the trail and keeps its `data` (the key).
 */
export const AGENT_SECURITY_EVENT_TYPES = BOOKING_SECURITY_EVENT_TYPES.filter(
  (t): t is Exclude<(typeof BOOKING_SECURITY_EVENT_TYPES)[number], 'api_key.revoked'> => t !== 'api_key.revoked',
);
/** The security trail's types a tenant's endpoints may subscribe to: every wallet type. */
export const TENANT_SECURITY_EVENT_TYPES = WALLET_SECURITY_EVENT_TYPES;
export type SecurityWebhookType = (typeof AGENT_SECURITY_EVENT_TYPES)[number] | (typeof TENANT_SECURITY_EVENT_TYPES)[number];

/** An operator took the voucher of an order of the agent (CONTRACT §6.5). */
export const VOUCHER_REDEEMED = 'order.voucher_redeemed';

/** The events an agent can subscribe to. */
export const AGENT_EVENT_TYPES = [
  ...ORDER_EVENT_TYPES,
  VOUCHER_REDEEMED,
  'api_key.revoked',
  'api_key.expiring',
  'agent_account.low_balance',
  ...AGENT_SECURITY_EVENT_TYPES,
] as const;
/** The events a tenant can subscribe to. */
export const AUTHORIZATION_EVENT_TYPES = [
  'authorization.created',
  'authorization.captured',
  'authorization.voided',
  'authorization.expired',
] as const;
export type AuthorizationEventType = (typeof AUTHORIZATION_EVENT_TYPES)[number];
export const TENANT_EVENT_TYPES = [
  'transaction.created',
  'wallet_user.created',
  ...AUTHORIZATION_EVENT_TYPES,
  ...TENANT_SECURITY_EVENT_TYPES,
] as const;
export type AgentEventType = (typeof AGENT_EVENT_TYPES)[number];
export type TenantEventType = (typeof TENANT_EVENT_TYPES)[number];
export type EventType = AgentEventType | TenantEventType;

/** Who receives an event: the agent or tenant the changed resource belongs to. */
export interface EventOwner {
  readonly kind: 'agent' | 'tenant';
  readonly id: string;
}

/** The event types an owner of this kind may subscribe to. */
export const eventTypesFor = (kind: EventOwner['kind']): readonly EventType[] =>
  kind === 'agent' ? AGENT_EVENT_TYPES : TENANT_EVENT_TYPES;

/**
 * A change that partners are told about. Storage records it in the same database transaction
 * as the change itself (an outbox), so it exists exactly when the change committed.
 */
export type DomainEvent =
  | {
      readonly type: OrderEventType;
      readonly owner: EventOwner;
      readonly occurredAt: Date;
      readonly order: Order;
      /** The status the order had (as true then) before this change; null for a new order. */
      readonly previousStatus: OrderStatus | null;
    }
  | {
      readonly type: typeof VOUCHER_REDEEMED;
      readonly owner: EventOwner;
      readonly occurredAt: Date;
      readonly order: Order;
      readonly redemption: VoucherRedemption;
    }
  | {
      readonly type: 'api_key.revoked' | 'api_key.expiring';
      readonly owner: EventOwner;
      readonly occurredAt: Date;
      readonly key: ApiKeyRecord;
    }
  | {
      readonly type: 'agent_account.low_balance';
      readonly owner: EventOwner;
      readonly occurredAt: Date;
      readonly agentId: string;
      readonly billing: AgentBilling;
    }
  | { readonly type: 'transaction.created'; readonly owner: EventOwner; readonly occurredAt: Date; readonly transaction: Transaction }
  | { readonly type: 'wallet_user.created'; readonly owner: EventOwner; readonly occurredAt: Date; readonly user: WalletUser }
  | {
      readonly type: AuthorizationEventType;
      readonly owner: EventOwner;
      readonly occurredAt: Date;
      /** The authorization as it is after this change. */
      readonly authorization: PendingTransfer;
      /** The PAYMENT of a capture; null for the other changes. */
      readonly capture: Transaction | null;
    }
  | { readonly type: SecurityWebhookType; readonly owner: EventOwner; readonly occurredAt: Date; readonly securityEvent: SecurityEvent };

/**
 * A recorded security event tells its owner's endpoints of its type, `data` being the event as
 * the API returns it; recorded with it, in its transaction. `api_key.revoked` is told by the key's
 * own event (`apiKeyRevoked`), once.
 */
export const securityEventNotices = (events: readonly SecurityEvent[]): DomainEvent[] =>
  events.flatMap((e): DomainEvent[] => {
    const types: readonly string[] = e.owner.kind === 'agent' ? AGENT_SECURITY_EVENT_TYPES : TENANT_SECURITY_EVENT_TYPES;
    return types.includes(e.type)
      ? [{ type: e.type as SecurityWebhookType, owner: e.owner, occurredAt: e.occurredAt, securityEvent: e }]
      : [];
  });

/**
 * Every change of an order's status tells its agent the event of the new status (`order.held`,
 * `order.pending`, `order.confirmed`, …) with the status before it; a new order has none.
 */
export const orderChanged = (order: Order, previousStatus: OrderStatus | null, at: Date): DomainEvent => ({
  type: ORDER_EVENT_OF_STATUS[order.status],
  owner: { kind: 'agent', id: order.agentId },
  occurredAt: at,
  order,
  previousStatus,
});

/** A voucher redeemed by the order's operator tells the order's agent, once. */
export const voucherRedeemed = (order: Order, redemption: VoucherRedemption): DomainEvent => ({
  type: VOUCHER_REDEEMED,
  owner: { kind: 'agent', id: order.agentId },
  occurredAt: redemption.redeemedAt,
  order,
  redemption,
});

/**
 * A key revoked by anyone (operator, rotation, a leak report) tells its agent `api_key.revoked`,
 * once per change of the key's revocation: when it leaves ACTIVE, and again when a key revoked
 * for another reason is later found leaked. `before` is the key as it was under the row lock.
 */
export const apiKeyRevoked = (before: ApiKeyRecord, after: ApiKeyRecord, at: Date): DomainEvent[] =>
  after.status === 'REVOKED' && (before.status === 'ACTIVE' || before.revokedReason !== after.revokedReason)
    ? [{ type: 'api_key.revoked', owner: { kind: 'agent', id: after.agentId }, occurredAt: at, key: after }]
    : [];

/** A key nears its `expiresAt` (KEY_EXPIRY_NOTICE_DAYS before it): told once to its agent. */
export const apiKeyExpiring = (key: ApiKeyRecord, at: Date): DomainEvent => ({
  type: 'api_key.expiring',
  owner: { kind: 'agent', id: key.agentId },
  occurredAt: at,
  key,
});

/**
 * An agent's spendable fell below its low-balance alert (it was at or above it before this
 * change): told once per fall, with the account's billing after it.
 */
export const lowBalance = (agentId: string, billing: AgentBilling, at: Date): DomainEvent => ({
  type: 'agent_account.low_balance',
  owner: { kind: 'agent', id: agentId },
  occurredAt: at,
  agentId,
  billing,
});

/** Whether a change of spendable from `before` to `after` falls below `alert` (null: no alert). */
export const fallsBelow = (alert: number | null, before: number, after: number): boolean =>
  alert !== null && after < alert && before >= alert;

/** Every recorded money movement tells its tenant `transaction.created`. */
export const transactionCreated = (transaction: Transaction): DomainEvent => ({
  type: 'transaction.created',
  owner: { kind: 'tenant', id: transaction.tenantId },
  occurredAt: transaction.createdAt,
  transaction,
});

/** A new wallet user (by `POST /users`, the operator, or a delegated token's first use) tells its tenant. */
export const walletUserCreated = (user: WalletUser): DomainEvent => ({
  type: 'wallet_user.created',
  owner: { kind: 'tenant', id: user.tenantId },
  occurredAt: user.createdAt,
  user,
});

/**
 * A change of a wallet authorization tells its tenant: `authorization.created` when money is
 * held, `.captured` for each capture (with its PAYMENT), `.voided`, `.expired` when the lapse is
 * recorded. Pending transfers of other owners (a booking's order) tell nothing here.
 */
export const authorizationChanged = (
  type: AuthorizationEventType,
  authorization: PendingTransfer,
  at: Date,
  capture: Transaction | null = null,
): DomainEvent[] =>
  authorization.owner.kind === AUTHORIZATION_OWNER
    ? [{ type, owner: { kind: 'tenant', id: authorization.tenantId }, occurredAt: at, authorization, capture }]
    : [];
