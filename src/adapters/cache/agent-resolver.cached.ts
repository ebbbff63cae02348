import type { AgentResolver, ResolvedKey } from '../../domain/identity/agent-resolver.port.js';

/** Whether cached entries can be trusted right now (the change feed is connected). */
export interface CacheHealth {
  readonly trusted: boolean;
}

/**
 * A bounded LRU in front of another resolver. Entries hold the stored key, agent and channel;
 * the domain still applies status and expiry on every request, so only a change that the
 * change feed announces (revocation, suspension, re-pricing) can make an entry stale, and
 * `clear()` is called for each. While the feed is down the cache is bypassed, and entries also
 * age out after `ttlMs` as a last resort.
 */
export class CachedAgentResolver implements AgentResolver {
  private readonly entries = new Map<string, { value: ResolvedKey; at: number }>();
  private generation = 0;

  constructor(
    private readonly inner: AgentResolver,
    private readonly health: CacheHealth,
    private readonly options: { maxEntries: number; ttlMs: number; now?: () => number },
  ) {}

  async findByKeyHash(keyHash: string): Promise<ResolvedKey | null> {
    const now = this.options.now?.() ?? Date.now();
    if (this.health.trusted) {
      const hit = this.entries.get(keyHash);
      if (hit !== undefined && now - hit.at < this.options.ttlMs) {
        // Re-insert to keep Map order as recency order.
        this.entries.delete(keyHash);
        this.entries.set(keyHash, hit);
        return hit.value;
      }
    }
    const generation = this.generation;
    const value = await this.inner.findByKeyHash(keyHash);
    // A change announced while the lookup was in flight may have made `value` stale.
    if (value !== null && this.health.trusted && generation === this.generation) {
      this.entries.delete(keyHash);
      this.entries.set(keyHash, { value, at: now });
      if (this.entries.size > this.options.maxEntries) {
        const oldest = this.entries.keys().next().value;
        if (oldest !== undefined) this.entries.delete(oldest);
      }
    }
    return value;
  }

  /** Forgets everything; called on every announced identity change. */
  clear(): void {
    this.generation += 1;
    this.entries.clear();
  }

  get size(): number {
    return this.entries.size;
  }
}
