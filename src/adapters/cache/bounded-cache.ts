/** How often a cache answered from memory (hits) or had to look further (misses). */
export interface CacheCounts {
  hits: number;
  misses: number;
}

/** A map that keeps at most `maxEntries`, dropping the least recently used. */
export class BoundedCache<V> {
  private readonly entries = new Map<string, V>();
  readonly counts: CacheCounts = { hits: 0, misses: 0 };

  constructor(private readonly maxEntries: number) {}

  get(key: string): V | undefined {
    const value = this.entries.get(key);
    if (value === undefined) this.counts.misses += 1;
    else {
      this.counts.hits += 1;
      // Re-insert to keep Map order as recency order.
      this.entries.delete(key);
      this.entries.set(key, value);
    }
    return value;
  }

  set(key: string, value: V): void {
    if (this.maxEntries <= 0) return;
    this.entries.delete(key);
    this.entries.set(key, value);
    if (this.entries.size > this.maxEntries) {
      const oldest = this.entries.keys().next().value;
      if (oldest !== undefined) this.entries.delete(oldest);
    }
  }

  delete(key: string): void {
    this.entries.delete(key);
  }

  get size(): number {
    return this.entries.size;
  }
}
