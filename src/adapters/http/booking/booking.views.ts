import type { TripOffer } from '../../../application/booking/list-trips.js';
import type { CancellationDecision } from '../../../domain/booking/cancellation.js';
import { keyLivemode, type KeyView } from '../../../domain/identity/api-key.js';
import type { Quote } from '../../../domain/booking/quote.js';

/** What the API shows of a trip. */
export const tripView = (t: TripOffer) => ({
  id: t.id,
  fromCityId: t.fromCityId,
  toCityId: t.toCityId,
  departsAt: t.departsAt.toISOString(),
  arrivesAt: t.arrivesAt.toISOString(),
  operator: { code: t.operator.code, name: t.operator.name },
  confirmation: t.confirmation,
  seatsLeft: t.seatsLeft,
  seatCapacity: t.seatCapacity,
  price: t.price,
});

/** What the API shows of a quote: never the agent or key it belongs to. */
export const quoteView = (q: Quote) => ({
  id: q.id,
  product: q.product,
  channel: { code: q.channelCode },
  price: q.price,
  expiresAt: q.expiresAt.toISOString(),
  createdAt: q.createdAt.toISOString(),
  operator: { code: q.operator.code, name: q.operator.name },
  confirmation: q.confirmation,
  details: q.details,
  livemode: q.livemode,
});

export { orderView } from '../../json-views.js';

/** What the API shows of a cancellation decision. */
export const cancellationView = (d: CancellationDecision) => ({
  cancellable: d.cancellable,
  reason: d.reason,
  refund: d.refund,
  fee: d.fee,
  freeUntil: d.freeUntil.toISOString(),
});

/** What the API shows of a key: metadata only, never the key or its hash. */
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

const iso = (d: Date | null): string | null => (d === null ? null : d.toISOString());
