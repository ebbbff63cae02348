import { shownSecurityEvent, type SecurityEvent } from '../domain/security-events/security-event.js';
import type { Order } from '../domain/booking/order.js';
import { keyLivemode, type KeyView } from '../domain/identity/api-key.js';
import type { Transaction } from '../domain/wallet/transaction.js';
import { remainingOf, statusAt, type PendingTransfer } from '../domain/wallet/pending-transfer.js';

/*
 * The JSON of the resources that both the HTTP answers and the webhook bodies carry: one shape
 * for both, outside the HTTP adapter so that the stores writing events (and the admin command
 * line on them) load no HTTP code.
 */

/** What the API shows of an order. */
const iso = (d: Date | null): string | null => (d === null ? null : d.toISOString());

export const orderView = (o: Order) => ({
  id: o.id,
  status: o.status,
  product: o.product,
  quoteId: o.quoteId,
  channel: { code: o.channelCode },
  price: o.price,
  contact: o.contact,
  passengers: o.passengers,
  agentReference: o.agentReference,
  details: o.details,
  createdAt: o.createdAt.toISOString(),
  holdExpiresAt: iso(o.holdExpiresAt),
  confirmationDeadline: iso(o.confirmationDeadline),
  confirmedAt: iso(o.confirmedAt),
  operator: o.operatorCode === null ? null : { code: o.operatorCode, confirmation: o.operatorTerms.confirmation },
  operatorReference: o.operatorReference,
  rejectionReason: o.rejectionReason,
  releaseReason: o.releaseReason,
  cancelledAt: iso(o.cancelledAt),
  cancelledBy: o.cancelledBy,
  cancellationTerms: o.terms,
  refund: o.refund,
  fee: o.fee,
  livemode: o.livemode,
});

/** The JSON of a transaction. */
export const transactionJson = (t: Transaction) => ({
  id: t.id,
  type: t.type,
  amount: t.amount,
  userId: t.userId,
  counterpartyUserId: t.counterpartyUserId,
  reference: t.reference,
  description: t.description,
  refundOf: t.refundOf,
  refunded: t.type === 'PAYMENT' ? { amount: t.refundedAmount, currency: t.amount.currency } : null,
  authorizationId: t.authorizationId,
  createdAt: t.createdAt.toISOString(),
  initiatedBy: t.initiatedBy,
});

/**
 * The JSON of a wallet authorization as true at `now`: a lapsed one reads EXPIRED (resolved at
 * its deadline), whatever storage recorded yet. `remaining` is what a capture may still take.
 */
export const authorizationJson = (t: PendingTransfer, now: Date) => {
  const status = statusAt(t, now);
  const currency = t.amount.currency;
  return {
    id: t.id,
    status,
    userId: t.account.kind === 'USER' ? t.account.userId : null,
    amount: t.amount,
    captured: { amount: t.captured, currency },
    remaining: { amount: status === 'PENDING' ? remainingOf(t) : 0, currency },
    reference: t.reference,
    expiresAt: t.expiresAt.toISOString(),
    createdAt: t.createdAt.toISOString(),
    resolvedAt: status === 'EXPIRED' && t.resolvedAt === null ? t.expiresAt.toISOString() : iso(t.resolvedAt),
  };
};

/** What the API shows of a security event (and what a webhook of its type carries as `data`). */
export const securityEventView = (recorded: SecurityEvent) => eventJson(shownSecurityEvent(recorded));

const eventJson = (e: SecurityEvent) => ({
  id: e.id,
  type: e.type,
  occurredAt: e.occurredAt.toISOString(),
  actor: {
    kind: e.actor.kind,
    id: e.actor.id,
    ...(e.actor.amr === undefined ? {} : { amr: [...e.actor.amr] }),
    ...(e.actor.act === undefined ? {} : { act: { sub: e.actor.act.sub } }),
  },
  subject: { kind: e.subject.kind, id: e.subject.id },
  ip: e.ip,
  requestId: e.requestId,
  details: e.details,
});

/** What the API and the admin's `key list` show of a key: metadata only, never the key or its hash. */
export const keyView = (k: KeyView) => ({
  id: k.id,
  prefix: k.prefix,
  status: k.status,
  createdAt: k.createdAt.toISOString(),
  expiresAt: iso(k.expiresAt),
  lastUsedAt: iso(k.lastUsedAt),
  revokedAt: iso(k.revokedAt),
  revokedReason: k.revokedReason,
  rolledFromKeyId: k.rolledFromKeyId,
  name: k.name,
  scopes: [...k.scopes],
  allowedIps: [...k.allowedIps],
  createdByKeyId: k.createdByKeyId,
  livemode: keyLivemode(k.prefix),
});
