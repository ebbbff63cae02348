import type { AgentPrincipal } from '../../domain/identity/principal.js';
import type { Quote } from '../../domain/booking/quote.js';
import type { Operator } from '../../domain/catalogue/operator.js';
import type { TariffReader } from '../../domain/catalogue/tariff.port.js';

/** How long a quote stays bookable. */
export interface QuotePolicy {
  readonly ttlSeconds: number;
}

/** A quote expires after the TTL, and never after the service it prices has started. */
export const expiryOf = (now: Date, startsAt: Date, policy: QuotePolicy): Date =>
  new Date(Math.min(now.getTime() + policy.ttlSeconds * 1000, startsAt.getTime()));

/** What a quote offers: the product, its price and when it starts, with what it is for. */
export type Offer = Pick<Quote, 'id' | 'product' | 'price' | 'startsAt' | 'details' | 'seats' | 'vehicle' | 'operator' | 'confirmation'>;

/**
 * The quote of an offer to the caller, minted now: it belongs to the caller's agent, key and
 * channel, and expires by the policy.
 */
export const quoteOf = (principal: AgentPrincipal, offer: Offer, now: Date, policy: QuotePolicy): Quote => ({
  id: offer.id,
  agentId: principal.agentId,
  channelCode: principal.channel.code,
  keyId: principal.keyId,
  product: offer.product,
  price: offer.price,
  startsAt: offer.startsAt,
  expiresAt: expiryOf(now, offer.startsAt, policy),
  createdAt: now,
  details: offer.details,
  seats: offer.seats,
  vehicle: offer.vehicle,
  operator: offer.operator,
  confirmation: offer.confirmation,
});

/**
 * The operator a fare or schedule names. Storage keeps every fare and schedule on an existing
 * operator (a foreign key), so a missing one is a broken catalogue, not a caller's mistake.
 */
export const requireOperator = async (tariffs: TariffReader, code: string): Promise<Operator> => {
  const [operator] = await tariffs.findOperators([code]);
  if (operator === undefined) throw new Error(`catalogue names an unknown operator ${code}`);
  return operator;
};
