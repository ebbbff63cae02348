/** Money in integer minor units of an ISO 4217 currency. Never a float. */
export interface Money {
  readonly amount: number;
  readonly currency: string;
}

export const money = (amount: number, currency: string): Money => {
  if (!Number.isSafeInteger(amount)) throw new RangeError(`amount must be an integer: ${amount}`);
  return { amount, currency };
};

/**
 * Applies a signed adjustment in basis points (1 bp = 0.01 %) to an integer amount.
 * Rounding rule: half away from zero, on the final figure only, so that chained
 * adjustments are computed exactly in integers before one rounding.
 */
export const applyBasisPoints = (amount: number, bps: number): number => {
  const scaled = amount * (10_000 + bps);
  const q = Math.trunc(scaled / 10_000);
  const rem = Math.abs(scaled % 10_000);
  return rem * 2 >= 10_000 ? q + Math.sign(scaled) : q;
};

/** Two ISO 4217 currencies are the same when their codes are. */
export const sameCurrency = (a: Money, b: Money): boolean => a.currency === b.currency;

/** Minor-unit exponent of a currency (THB 2, JPY 0, …). */
export const currencyExponent = (currency: string): number => (ZERO_DECIMAL.has(currency) ? 0 : 2);

const ZERO_DECIMAL = new Set(['JPY', 'KRW', 'VND', 'CLP', 'ISK', 'UGX', 'XAF', 'XOF']);

/** A well-formed ISO 4217 alphabetic code (three upper-case letters). */
export const isCurrencyCode = (value: string): boolean => /^[A-Z]{3}$/.test(value);
