/** Seals webhook signing secrets for storage (authenticated encryption with a configured key). */
export interface SecretSealer {
  /** The secret, encrypted and authenticated, as text to store. */
  seal(secret: string): string;
  /** The secret from `seal`; throws when the text was altered or sealed with another key. */
  open(sealed: string): string;
}

/**
 * Decides whether a URL may receive webhooks: `https` (unless insecure URLs are allowed) and a
 * host that resolves only to public addresses (unless private ones are allowed). Throws
 * DomainError `invalid-webhook-url` otherwise. Resolves the name each time: DNS can change.
 */
export interface WebhookUrlGuard {
  /** Checks the URL and returns the address a connection must use (pinned, not resolved again). */
  check(url: string): Promise<{ readonly address: string; readonly family: 4 | 6 }>;
}
