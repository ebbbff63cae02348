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
 * The one rounding rule of the service: `n / d` to the nearest integer, ties away from zero
 * (d > 0). Money is computed exactly in integers and rounded once, on the final figure.
 */
export const roundHalfAwayFromZero = (n: bigint, d: bigint): bigint => {
  const q = n / d; // truncates toward zero
  const r = n % d;
  const twice = (r < 0n ? -r : r) * 2n;
  if (twice >= d) return n < 0n ? q - 1n : q + 1n;
  return q;
};

/** A well-formed ISO 4217 alphabetic code (three upper-case letters). */
export const isCurrencyCode = (value: string): boolean => /^[A-Z]{3}$/.test(value);
