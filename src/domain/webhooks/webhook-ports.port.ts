import type { EventOwner, EventType } from './events.js';

/** Seals webhook signing secrets for storage (authenticated encryption with a configured key). */
export interface SecretSealer {
  /** The secret, encrypted and authenticated, as text to store. */
  seal(secret: string): string;
  /** The secret from `seal`; throws when the text was altered or sealed with another key. */
  open(sealed: string): string;
}

/** Who a URL check is for, and how long it may take. */
export interface UrlCheckContext {
  /** Lookups are bounded per owner, so one owner's slow name server delays no other owner. */
  readonly owner?: EventOwner;
  /** The check ends within this many milliseconds (a delivery's lookup counts in its attempt's time). */
  readonly withinMs?: number;
}

/**
 * Decides whether a URL may receive webhooks: `https` (unless insecure URLs are allowed) and a
 * host that resolves only to public addresses (unless private ones are allowed). Throws
 * DomainError `invalid-webhook-url` otherwise. Resolves the name each time: DNS can change.
 */
export interface WebhookUrlGuard {
  /** Checks the URL and returns the address a connection must use (pinned, not resolved again). */
  check(url: string, context?: UrlCheckContext): Promise<{ readonly address: string; readonly family: 4 | 6 }>;
}

/** The `data` of a sample event of a type (a test delivery's), shaped as a real event of that type carries it. */
export type SampleEventData = (type: EventType, at: Date, livemode: boolean) => Promise<unknown>;
