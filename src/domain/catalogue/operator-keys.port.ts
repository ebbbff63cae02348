import type { OperatorKeyRecord, ResolvedOperatorKey } from './operator-key.js';

/** The keys operators call `/operator/v1/` with (CONTRACT §6.3). */
export interface OperatorKeyStore {
  /** Stores a new key; DomainError `operator-not-found`, storing nothing, when its operator does not exist. */
  issue(record: OperatorKeyRecord): Promise<OperatorKeyRecord>;
  /**
   * Revokes a key at `at`; revoking a revoked key changes nothing and answers it as it is.
   * DomainError `key-not-found` when there is no such key.
   */
  revoke(keyId: string, at: Date): Promise<OperatorKeyRecord>;
  /**
   * The key whose stored hash equals `keyHash`, with its operator, revoked or not (the caller
   * applies the rules); null when no key has that hash. Lookup by equality on the hash.
   */
  findByKeyHash(keyHash: string): Promise<ResolvedOperatorKey | null>;
}
