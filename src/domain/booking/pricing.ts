import { DomainError } from '../shared/errors.js';
import { money, roundHalfAwayFromZero, type Money } from '../shared/money.js';

/** The contracted pricing that applies to one caller: its channel's markup and its own discount. */
export interface PricingTerms {
  /** The channel's currency: prices are only quoted in it. */
  readonly currency: string;
  /** Signed markup of the channel over base fares, in basis points. */
  readonly markupBps: number;
  /** The agent's discount off the channel price, in basis points (0..10000). */
  readonly discountBps: number;
}

const BP = 10_000n;

/**
 * The price of one unit (a bus seat, a transfer vehicle) for the caller:
 * base fare → channel markup → agent discount, all in exact integer arithmetic, then ONE
 * rounding to the currency's minor unit, half away from zero. So
 * `unit = round(base × (10000 + markup) × (10000 − discount) / 10000²)`.
 * A fare in another currency than the channel's has no price (no conversion is made).
 */
export const unitPrice = (baseFare: Money, terms: PricingTerms): Money => {
  if (baseFare.currency !== terms.currency) {
    throw new DomainError('no-fare', { message: `No fare in the channel's currency ${terms.currency}.` });
  }
  const scaled = BigInt(baseFare.amount) * (BP + BigInt(terms.markupBps)) * (BP - BigInt(terms.discountBps));
  return money(Number(roundHalfAwayFromZero(scaled, BP * BP)), terms.currency);
};

/** The price of `quantity` units: the unit price times the quantity (no further rounding). */
export const totalPrice = (unit: Money, quantity: number): Money => {
  if (!Number.isSafeInteger(quantity) || quantity < 1) throw new RangeError(`quantity must be a positive integer: ${quantity}`);
  return money(unit.amount * quantity, unit.currency);
};

/** The pricing terms of the caller, from its key alone: its channel's markup and currency, its discount. */
export const termsOf = (principal: {
  readonly channel: { readonly currency: string; readonly markupBps: number };
  readonly discountBps: number;
}): PricingTerms => ({
  currency: principal.channel.currency,
  markupBps: principal.channel.markupBps,
  discountBps: principal.discountBps,
});
