import type { ApiKeyRecord } from './api-key.js';

/** The notice that a key nears its expiry (`api_key.expiring`), sent once per key. */
export interface KeyExpiryNotices {
  /**
   * Claims at most `limit` keys that are ACTIVE, whose `expiresAt` lies after `now` and no later
   * than `now + withinMs`, and whose notice was never sent; for each, in one transaction, marks
   * the notice sent and records `api_key.expiring` in the webhook outbox. Instances running this
   * at once never claim the same key (a key is noticed at most once, ever). Returns the keys.
   */
  sendDue(now: Date, withinMs: number, limit: number): Promise<ApiKeyRecord[]>;
}
