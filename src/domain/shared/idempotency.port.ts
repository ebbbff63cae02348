/** A stored outcome of an idempotent request, replayed byte for byte. */
export interface StoredResponse {
  readonly status: number;
  readonly contentType: string;
  readonly body: string;
  /**
   * The headers that describe the resource (`Location`, `Cache-Control`), replayed with it; names
   * in lower case. Absent on responses stored before they were kept.
   */
  readonly headers?: Readonly<Record<string, string>>;
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

/**
 * The outcome of claiming a key: `claimed` (the caller runs the request, then completes the key
 * in the same unit of work, and calls `end` once that unit has ended, whether it committed or
 * not), or `replay` of the stored response.
 */
export type IdempotencyClaim =
  { readonly state: 'claimed'; readonly end: () => void } | { readonly state: 'replay'; readonly response: StoredResponse };

/**
 * How long a claim waits for another live claim of the same key to end before giving up with
 * `idempotency-key-in-use`. A duplicate that arrives while the first request runs waits for it
 * and then replays its answer; only a first request slower than this gives 409. (The database
 * sessions' lock_timeout is the same 5 s.)
 */
export const IDEMPOTENCY_WAIT_MS = 5_000;
/** How long completed keys are kept (at least 24 hours, as the contract promises). */
export const IDEMPOTENCY_RETENTION_MS = 48 * 3_600_000;

/**
 * Storage of idempotency keys, shared by every instance. A claim and the stored response are
 * written in the caller's running unit of work, together with the request's own writes: they
 * commit in one commit, or not at all (a failed request, a crash or a lost connection undoes the
 * claim with the writes, so a retry runs again).
 */
export interface IdempotencyStore {
  /**
   * Claims the key for this request in the running unit of work, atomically across instances:
   * - another live claim of the key → waits until it ends (up to IDEMPOTENCY_WAIT_MS, then throws
   *   DomainError `idempotency-key-in-use`), then decides as below;
   * - not seen before, or only claimed by a holder that has ended without a response → `claimed`
   *   (held until the unit of work ends);
   * - completed with the same fingerprint → `replay` with the stored response;
   * - completed with another fingerprint → throws DomainError `idempotency-key-reused`.
   */
  claim(request: IdempotencyRequest, now: Date): Promise<IdempotencyClaim>;
  /** Stores the response of a key this unit of work claimed; it is kept if the unit commits. */
  complete(request: IdempotencyRequest, response: StoredResponse, now: Date): Promise<void>;
  /**
   * Deletes up to `batch` keys created before `before`, in one bounded statement that skips keys
   * a request holds (safe while other instances purge); returns how many.
   */
  purge(before: Date, batch: number): Promise<number>;
  /** How many keys were created before `before` (what a purge would remove). */
  countBefore(before: Date): Promise<number>;
}
