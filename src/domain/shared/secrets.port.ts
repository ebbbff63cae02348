/** Random bytes and one-way hashes of high-entropy secrets (API keys, client secrets). */
export interface SecretHasher {
  /** Returns a deterministic hex digest of the secret, so the stored hash can be looked up by equality. */
  hash(secret: string): string;
}

/** A source of cryptographically strong random bytes. */
export interface RandomSource {
  /** Returns `length` random bytes. */
  bytes(length: number): Uint8Array;
}
