/** A stored outcome of an idempotent request, replayed byte for byte. */
export interface StoredResponse {
  readonly status: number;
  readonly contentType: string;
  readonly body: string;
}

/** What a request made with an `Idempotency-Key` presents. */
export interface IdempotencyRequest {
  /** Who is calling: the same key from another caller is a different key. */
  readonly scope: string;
  /** The caller's `Idempotency-Key` (1..255 characters). */
  readonly key: string;
  /** A digest of method, path and body: the same key with another request is refused. */
  readonly fingerprint: string;
}

/** The outcome of claiming a key. */
export type IdempotencyClaim =
  | { readonly state: 'claimed' }
  | { readonly state: 'replay'; readonly response: StoredResponse };

/** How long a claim may stay in progress before a retry may take it over (the first one died). */
export const IDEMPOTENCY_STALE_AFTER_MS = 60_000;
/** How long completed keys are kept (at least 24 hours, as the contract promises). */
export const IDEMPOTENCY_RETENTION_MS = 48 * 3_600_000;

/**
 * Storage of idempotency keys, shared by every instance. Business writes made under a key also
 * carry the key in a unique column, so even a claim taken over after a crash applies at most once.
 */
export interface IdempotencyStore {
  /**
   * Claims the key for this request, atomically across instances:
   * - not seen before, or an in-progress claim older than IDEMPOTENCY_STALE_AFTER_MS with the same
   *   fingerprint → `claimed` (the caller now runs the request);
   * - completed with the same fingerprint → `replay` with the stored response;
   * - seen with another fingerprint → throws DomainError `idempotency-key-reused`;
   * - in progress with the same fingerprint → throws DomainError `idempotency-key-in-use`.
   */
  claim(request: IdempotencyRequest, now: Date): Promise<IdempotencyClaim>;
  /** Stores the response of a claimed request; later claims replay it. */
  complete(request: IdempotencyRequest, response: StoredResponse, now: Date): Promise<void>;
  /** Drops a claim whose request had no effect (an error), so that a retry runs again. */
  release(request: IdempotencyRequest): Promise<void>;
  /** Deletes keys created before `before`; returns how many. */
  purge(before: Date): Promise<number>;
}
