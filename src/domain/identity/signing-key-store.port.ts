/** A token signing key as kept in storage (JWKs as plain JSON objects). */
export interface StoredSigningKey {
  readonly kid: string;
  readonly alg: string;
  readonly privateJwk: Readonly<Record<string, unknown>>;
  readonly publicJwk: Readonly<Record<string, unknown>>;
  readonly createdAt: Date;
  /** When it stopped signing; null while it is the active key. */
  readonly retiredAt: Date | null;
}

/**
 * Token signing keys shared by every instance. A `ring` names one independent set of keys
 * (the service uses one); each ring has at most one active key at any time.
 */
export interface SigningKeyStore {
  /**
   * Returns the ring's active key, storing `candidate` as the active key when there is none.
   * Under concurrency (several instances starting at once) every caller gets the same key.
   */
  ensureActive(ring: string, candidate: StoredSigningKey): Promise<StoredSigningKey>;
  /**
   * Retires the active key at `at` and makes `next` active, atomically. When another rotation
   * wins a race, returns the key that is active afterwards without storing `next`.
   */
  rotate(ring: string, next: StoredSigningKey, at: Date): Promise<{ active: StoredSigningKey; retired: StoredSigningKey | null }>;
  /** The active key and the keys retired after `retiredAfter`, newest first; empty when none. */
  listUsable(ring: string, retiredAfter: Date): Promise<StoredSigningKey[]>;
}
