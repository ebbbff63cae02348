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
 * A claim on a key, held by the one request that runs under it. The claim lives exactly as long
 * as its holder: it ends with `complete` or `release`, and at once when the holder's process or
 * database connection dies, so a retry after a crash never waits for a timeout.
 */
export interface IdempotencyLease {
  /** Stores the response and ends the claim; later claims of the key replay it. */
  complete(response: StoredResponse, now: Date): Promise<void>;
  /** Ends the claim without a response (the request failed), so that a retry runs again. */
  release(): Promise<void>;
  /**
   * The claim's unit of work, when the store can hold the claim and the request's writes in one:
   * a write given it (the ledger's) commits together with the stored response, or not at all.
   * Absent when the store cannot; the request's writes then commit on their own.
   */
  readonly unitOfWork?: UnitOfWork;
}

/**
 * An opaque handle on the unit of work of a running request's idempotency claim. Only the
 * adapters of the store that made it can write through it; any other store ignores it.
 */
export interface UnitOfWork {
  readonly unitOfWork: true;
}

/** The outcome of claiming a key. */
export type IdempotencyClaim =
  { readonly state: 'claimed'; readonly lease: IdempotencyLease } | { readonly state: 'replay'; readonly response: StoredResponse };

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
 * Storage of idempotency keys, shared by every instance. Business writes made under a key also
 * carry the key in a unique column, so a retry whose first attempt committed its write but died
 * before completing the key applies at most once.
 */
export interface IdempotencyStore {
  /**
   * Claims the key for this request, atomically across instances:
   * - another live claim of the key → waits until it ends (up to IDEMPOTENCY_WAIT_MS, then throws
   *   DomainError `idempotency-key-in-use`), then decides as below;
   * - not seen before, or only claimed by a holder that has ended without a response → `claimed`
   *   with a lease (the caller now runs the request and must complete or release it);
   * - completed with the same fingerprint → `replay` with the stored response;
   * - completed with another fingerprint → throws DomainError `idempotency-key-reused`.
   */
  claim(request: IdempotencyRequest, now: Date): Promise<IdempotencyClaim>;
  /**
   * Deletes up to `batch` keys created before `before`, in one bounded statement that skips keys
   * a request holds (safe while other instances purge); returns how many.
   */
  purge(before: Date, batch: number): Promise<number>;
  /** How many keys were created before `before` (what a purge would remove). */
  countBefore(before: Date): Promise<number>;
}
