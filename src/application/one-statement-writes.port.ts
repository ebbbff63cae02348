import type { IdempotencyRequest, StoredResponse } from '../domain/shared/idempotency.port.js';

/** A ledger write made by `OneStatementWrites.prepare`, not yet sent. */
export interface PreparedWrite {
  /**
   * Sends the write together with `request`'s key stored done with `response`, as one write
   * that commits both or neither (its refusal is thrown as the domain's error, and nothing is
   * kept). `key-taken`: another request has stored or holds the key; nothing was written.
   */
  commitWith(
    request: IdempotencyRequest,
    response: StoredResponse,
    times: { readonly claimedAt: Date; readonly completedAt: Date },
  ): Promise<'written' | 'key-taken'>;
}

/**
 * Keyed writes that cost one statement and no transaction held across the request: a ledger
 * write and its idempotency key's answer sent together (ADR 0010). An adapter opts in at the
 * composition root; without one, `IdempotentWrites` runs every keyed write in a unit of work.
 */
export interface OneStatementWrites {
  /**
   * Runs `work`, whose one write must be a ledger top-up, payment or transfer (no other store
   * write, no refund: those need a unit of work), and answers what it returned with that write,
   * made ready but not sent (null when it made none).
   */
  prepare<T>(work: () => Promise<T>): Promise<{ readonly value: T; readonly write: PreparedWrite | null }>;
}
