import type { AgentPrincipal } from '../../domain/identity/principal.js';
import type { Quote } from '../../domain/booking/quote.js';
import type { QuoteRepo } from '../../domain/booking/quote-repo.port.js';
import type { TripInventory } from '../../domain/booking/trip-inventory.port.js';
import type { Operator } from '../../domain/catalogue/operator.js';
import type { TariffReader } from '../../domain/catalogue/tariff.port.js';
import type { Clock } from '../../domain/shared/clock.port.js';
import type { IdGenerator } from '../../domain/shared/ids.port.js';

/** How long a quote stays bookable. */
export interface QuotePolicy {
  readonly ttlSeconds: number;
}

/** A quote expires after the TTL, and never after the service it prices has started. */
export const expiryOf = (now: Date, startsAt: Date, policy: QuotePolicy): Date =>
  new Date(Math.min(now.getTime() + policy.ttlSeconds * 1000, startsAt.getTime()));

/** What a quote offers: the product, its price and when it starts, with what it is for. */
export type Offer = Pick<
  Quote,
  'id' | 'product' | 'price' | 'baseFare' | 'startsAt' | 'details' | 'seats' | 'vehicle' | 'operator' | 'confirmation'
>;

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
  ...(offer.baseFare === undefined ? {} : { baseFare: offer.baseFare }),
  startsAt: offer.startsAt,
  expiresAt: expiryOf(now, offer.startsAt, policy),
  createdAt: now,
  livemode: principal.livemode,
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

/** An offer before it is quoted: the operator's name, code and confirmation are added from `operator`. */
export type PricedOffer = Omit<Offer, 'id' | 'operator' | 'confirmation'>;

/**
 * What the product quotes (bus trip, transfer) share, written once: their stores, and keeping a
 * priced offer as the caller's quote under a new `qte_…` id. Each keeps its own checks and price.
 */
export abstract class ProductQuote {
  constructor(
    protected readonly tariffs: TariffReader,
    protected readonly inventory: TripInventory,
    private readonly quotes: QuoteRepo,
    private readonly ids: IdGenerator,
    protected readonly clock: Clock,
    private readonly policy: QuotePolicy,
  ) {}

  /** Quotes `offer` from `operator` to the caller, minted `now`, and stores it. */
  protected async keep(principal: AgentPrincipal, offer: PricedOffer, operator: Operator, now: Date): Promise<Quote> {
    const { code, name, confirmation } = operator;
    const quote = quoteOf(principal, { id: this.ids.next('qte'), ...offer, operator: { code, name }, confirmation }, now, this.policy);
    await this.quotes.insert(quote);
    return quote;
  }
}
