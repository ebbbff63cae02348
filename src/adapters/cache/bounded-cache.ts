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
