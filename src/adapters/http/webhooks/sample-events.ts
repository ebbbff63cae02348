import type { EventType } from '../../../domain/webhooks/events.js';
import { DEMO_USER_EXAMPLE } from '../wallet/auth.operations.js';
import { demoExamples, EXAMPLE_IDS, EXAMPLE_SECRETS, exampleDayOf, type DemoExamples } from '../openapi/examples.js';
import { transferQuoteExample } from '../booking/quotes.operations.js';
import { eventExample } from '../security-events/security-events.operations.js';
import { authorizationExample, captureExample, paymentExample, thb } from '../wallet/wallet-examples.js';

/**
 * The `data` of a test delivery's sample event: the published files' examples (the demo agent's
 * airport transfer, the demo tenant's payment and user, the trail's example event), shaped as a
 * real event of that type carries them, dated on the day the test is sent.
 */
export function sampleEventData(type: EventType, at: Date, livemode = true): unknown {
  const demo = demoExamples(exampleDayOf(at));
  if (type.startsWith('order.')) return orderData(type, demo, livemode);
  if (type.startsWith('authorization.')) return authorizationData(type, demo);
  switch (type) {
    case 'api_key.revoked':
    case 'api_key.expiring':
      return keyData(type, demo, livemode);
    case 'transaction.created':
      return paymentExample(demo);
    case 'wallet_user.created':
      return {
        id: EXAMPLE_IDS.demoUser,
        externalUserRef: DEMO_USER_EXAMPLE.externalUserRef,
        email: DEMO_USER_EXAMPLE.email,
        createdAt: demo.createdAt,
      };
    default:
      return securityData(type, demo);
  }
}

/** The example order in the status the event reports, with the status it had before. */
function orderData(type: string, demo: DemoExamples, livemode: boolean) {
  const quote = transferQuoteExample(demo);
  const later = (hhmm: string) => demo.createdAt.replace('T03:00', `T${hhmm}`);
  const base = {
    id: EXAMPLE_IDS.order,
    status: 'CONFIRMED',
    product: quote.product,
    quoteId: quote.id,
    channel: quote.channel,
    price: quote.price,
    contact: { name: 'Malee Srisuk', email: 'malee.srisuk@example.com', phone: '+66 81 234 5678' },
    passengers: [{ name: 'Malee Srisuk' }, { name: 'Anan Srisuk' }],
    agentReference: 'DTA-2026-0042',
    details: quote.details,
    createdAt: demo.createdAt,
    holdExpiresAt: null as string | null,
    confirmationDeadline: null as string | null,
    confirmedAt: demo.createdAt as string | null,
    operator: { code: 'SIAM-AIRPORT-TRANSFERS', confirmation: 'instant' },
    operatorReference: null,
    rejectionReason: null as string | null,
    releaseReason: null as string | null,
    cancelledAt: null as string | null,
    cancelledBy: null as string | null,
    cancellationTerms: { freeCancellationHours: 24, lateCancellationFeeBps: 5000 },
    refund: null as typeof quote.price | null,
    fee: null as typeof quote.price | null,
    livemode,
  };
  const held = { ...base, status: 'ON_HOLD', confirmedAt: null, holdExpiresAt: later('03:30') };
  const pending = {
    ...base,
    status: 'PENDING',
    confirmedAt: null,
    confirmationDeadline: later('05:00'),
    operator: { code: 'SIAM-AIRPORT-TRANSFERS', confirmation: 'on-request' },
  };
  switch (type) {
    case 'order.held':
      return { ...held, previousStatus: null };
    case 'order.pending':
      return { ...pending, previousStatus: null };
    case 'order.rejected':
      return { ...pending, status: 'REJECTED', rejectionReason: 'operator-timeout', previousStatus: 'PENDING' };
    case 'order.expired':
      return { ...held, status: 'EXPIRED', previousStatus: 'ON_HOLD' };
    case 'order.released':
      return { ...held, status: 'RELEASED', releaseReason: 'agent', previousStatus: 'ON_HOLD' };
    case 'order.cancelled':
      return {
        ...base,
        status: 'CANCELLED',
        cancelledAt: later('05:00'),
        cancelledBy: 'agent',
        refund: quote.price,
        fee: { amount: 0, currency: quote.price.currency },
        previousStatus: 'CONFIRMED',
      };
    case 'order.voucher_redeemed':
      return { ...base, previousStatus: 'CONFIRMED', voucherRedeemedAt: later('06:00') };
    default:
      return { ...base, previousStatus: null };
  }
}

/** The demo user's example authorization after the change the event reports, with its capture's PAYMENT (else null). */
function authorizationData(type: string, demo: DemoExamples) {
  const pending = authorizationExample(demo);
  switch (type) {
    case 'authorization.captured':
      return captureExample(demo);
    case 'authorization.voided':
      return { ...pending, status: 'VOIDED', remaining: thb(0), resolvedAt: demo.createdAt.replace('T03:00', 'T04:05'), capture: null };
    case 'authorization.expired':
      return { ...pending, status: 'EXPIRED', remaining: thb(0), resolvedAt: pending.expiresAt, capture: null };
    default:
      return { ...pending, capture: null };
  }
}

/** The demo agent's key as the key events carry it (metadata only). */
function keyData(type: 'api_key.revoked' | 'api_key.expiring', demo: DemoExamples, livemode: boolean) {
  const revoked = type === 'api_key.revoked';
  const prefix = EXAMPLE_SECRETS.apiKey.slice(0, 8);
  return {
    id: EXAMPLE_IDS.apiKey,
    prefix: livemode ? prefix : prefix.replace('pbk_', 'pbk_test_'),
    status: revoked ? 'REVOKED' : 'ACTIVE',
    createdAt: demo.createdAt,
    expiresAt: revoked ? null : `${demo.travelDate}T00:00:00.000Z`,
    revokedAt: revoked ? demo.createdAt.replace('T03:00', 'T04:00') : null,
    revokedReason: revoked ? 'operator' : null,
    livemode,
  };
}

/** The trail's example event, of this type; a wallet type is the demo tenant's client acting on its user. */
function securityData(type: string, demo: DemoExamples) {
  const example = eventExample(demo);
  if (type === example.type) return example;
  const wallet = !type.startsWith('api_key.') && !type.startsWith('webhook_endpoint.');
  return {
    ...example,
    type,
    ...(wallet
      ? { actor: { kind: 'client', id: EXAMPLE_IDS.client }, subject: { kind: 'user', id: EXAMPLE_IDS.demoUser } }
      : type.startsWith('webhook_endpoint.')
        ? { subject: { kind: 'webhook_endpoint', id: EXAMPLE_IDS.bookingEndpoint } }
        : {}),
    details: {},
  };
}
