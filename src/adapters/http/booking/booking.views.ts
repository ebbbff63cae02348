import type { TripOffer } from '../../../application/booking/list-trips.js';
import type { CancellationDecision } from '../../../domain/booking/cancellation.js';
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

export { keyView } from '../../json-views.js';
