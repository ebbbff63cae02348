import type { AgentResolver, ResolvedKey } from '../../domain/identity/agent-resolver.port.js';
import { InvalidatedCacheFront, type CacheHealth, type InvalidatedCacheOptions } from './lru-caches.js';

export type { CacheHealth } from './lru-caches.js';

/** The tables whose changes can make a resolved key stale. */
export const AGENT_IDENTITY_TABLES: ReadonlySet<string> = new Set(['channels', 'agents', 'api_keys']);

/**
 * A bounded LRU in front of another resolver. Entries hold the stored key, agent and channel;
 * the domain still applies status and expiry on every request, so only a change that the
 * change feed announces (revocation, suspension, re-pricing) can make an entry stale, and
 * `clear()` is called for each. While the feed is down the cache is bypassed, and entries also
 * age out after `ttlMs` as a last resort.
 */
export class CachedAgentResolver extends InvalidatedCacheFront<ResolvedKey> implements AgentResolver {
  constructor(
    private readonly inner: AgentResolver,
    health: CacheHealth,
    options: InvalidatedCacheOptions,
  ) {
    super(health, options);
  }

  findByKeyHash(keyHash: string): Promise<ResolvedKey | null> {
    return this.cache.get(keyHash, () => this.inner.findByKeyHash(keyHash));
  }
}
