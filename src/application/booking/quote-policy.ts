/** How long a quote stays bookable. */
export interface QuotePolicy {
  readonly ttlSeconds: number;
}

/** A quote expires after the TTL, and never after the service it prices has started. */
export const expiryOf = (now: Date, startsAt: Date, policy: QuotePolicy): Date =>
  new Date(Math.min(now.getTime() + policy.ttlSeconds * 1000, startsAt.getTime()));
