import type { ResolvedOperatorKey } from '../../domain/catalogue/operator-key.js';
import type { OperatorKeyStore } from '../../domain/catalogue/operator-keys.port.js';
import { InvalidatedCacheFront, type CacheHealth, type InvalidatedCacheOptions } from './lru-caches.js';

/** The tables whose changes can make a resolved operator key stale. */
export const OPERATOR_IDENTITY_TABLES: ReadonlySet<string> = new Set(['operator_keys']);

/**
 * The same bounded, change-fed cache as agent keys (`CachedAgentResolver`) in front of the
 * operator key store: lookups by hash are kept, every write and every announced change to
 * `operator_keys` clears it (on every instance, by the identity change feed), and while the feed
 * is down every lookup goes to the store.
 */
export class CachedOperatorKeyStore extends InvalidatedCacheFront<ResolvedOperatorKey> implements OperatorKeyStore {
  constructor(
    private readonly inner: OperatorKeyStore,
    health: CacheHealth,
    options: InvalidatedCacheOptions,
  ) {
    super(health, options);
  }

  findByKeyHash(keyHash: string): Promise<ResolvedOperatorKey | null> {
    return this.cache.get(keyHash, () => this.inner.findByKeyHash(keyHash));
  }

  async issue(record: Parameters<OperatorKeyStore['issue']>[0]): ReturnType<OperatorKeyStore['issue']> {
    try {
      return await this.inner.issue(record);
    } finally {
      this.clear();
    }
  }

  async revoke(keyId: string, at: Date): ReturnType<OperatorKeyStore['revoke']> {
    try {
      return await this.inner.revoke(keyId, at);
    } finally {
      this.clear();
    }
  }
}
