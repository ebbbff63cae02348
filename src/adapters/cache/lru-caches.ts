import { LRUCache } from 'lru-cache';

/** How often a cache answered from memory (hits) or had to look further (misses). */
export interface CacheCounts {
  hits: number;
  misses: number;
}

/**
 * A map that keeps at most `maxEntries`, dropping the least recently used (lru-cache). A hit
 * only moves the entry in lru-cache's index lists: reordering a `Map` by deleting and setting
 * the key again, on every hit, made V8 rebuild its hash table now and then, and a replaced
 * table in the old generation kept every object it had held alive until the next full
 * collection (bench/results.md, 2026-11-27).
 */
export class BoundedCache<V extends object> {
  private readonly entries: LRUCache<string, V> | null;
  readonly counts: CacheCounts = { hits: 0, misses: 0 };

  constructor(maxEntries: number) {
    this.entries = maxEntries > 0 ? new LRUCache<string, V>({ max: maxEntries }) : null;
  }

  get(key: string): V | undefined {
    const value = this.entries?.get(key);
    if (value === undefined) this.counts.misses += 1;
    else this.counts.hits += 1;
    return value;
  }

  set(key: string, value: V): void {
    this.entries?.set(key, value);
  }

  delete(key: string): void {
    this.entries?.delete(key);
  }

  get size(): number {
    return this.entries?.size ?? 0;
  }
}

/** Whether cached entries can be trusted right now (the change feed is connected). */
export interface CacheHealth {
  readonly trusted: boolean;
}

/** Size and age limits of an invalidated cache. */
export interface InvalidatedCacheOptions {
  readonly maxEntries: number;
  /** A last resort: entries older than this are read again even if no change was announced. */
  readonly ttlMs: number;
  readonly now?: () => number;
}

/**
 * A bounded LRU of found values, kept fresh by `clear()` being called on every announced change.
 * While `health` says announcements may be missed, every read goes to `load`. A value read while
 * a change was announced is returned but not kept, since it may predate the change. Not-found
 * (null) is never kept, so something created is seen at once.
 */
export class InvalidatedCache<V> {
  /**
   * Least recently used first out (lru-cache): a hit moves the entry in lru-cache's index lists
   * and changes no hash table (see `BoundedCache`). None when `maxEntries` is 0: nothing is kept.
   */
  private readonly entries: LRUCache<string, { value: V; at: number }> | null;
  private generation = 0;
  readonly counts: CacheCounts = { hits: 0, misses: 0 };

  constructor(
    private readonly health: CacheHealth,
    private readonly options: InvalidatedCacheOptions,
  ) {
    this.entries = options.maxEntries > 0 ? new LRUCache({ max: options.maxEntries }) : null;
  }

  async get(key: string, load: () => Promise<V | null>): Promise<V | null> {
    const now = this.options.now?.() ?? Date.now();
    if (this.health.trusted) {
      const hit = this.entries?.get(key);
      if (hit !== undefined && now - hit.at < this.options.ttlMs) {
        this.counts.hits += 1;
        return hit.value;
      }
    }
    this.counts.misses += 1;
    const generation = this.generation;
    const value = await load();
    if (value !== null && this.health.trusted && generation === this.generation) this.entries?.set(key, { value, at: now });
    return value;
  }

  /** Forgets everything, including what reads now in flight would bring back. */
  clear(): void {
    this.generation += 1;
    this.entries?.clear();
  }

  get size(): number {
    return this.entries?.size ?? 0;
  }
}

/**
 * What a store fronted by an `InvalidatedCache` exposes besides the port: `clear()`, called on
 * every change the database's feed announces, and the figures the metrics read.
 */
export abstract class InvalidatedCacheFront<V> {
  protected readonly cache: InvalidatedCache<V>;

  protected constructor(health: CacheHealth, options: InvalidatedCacheOptions) {
    this.cache = new InvalidatedCache<V>(health, options);
  }

  /** Forgets everything; called on every announced change to what the cache holds. */
  clear(): void {
    this.cache.clear();
  }

  get size(): number {
    return this.cache.size;
  }

  /** Lookups answered from memory and from the database, since start. */
  get counts(): CacheCounts {
    return this.cache.counts;
  }
}
