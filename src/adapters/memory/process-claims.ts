import { keyInUse } from '../../domain/shared/idempotency.js';

/**
 * Claims held in this process: at most one holder per id, later claimants wait (up to `waitMs`)
 * for it to end. They die with the process, which is all a store needs when one process owns the
 * data: the in-memory store.
 */
export class ProcessClaims {
  private readonly held = new Map<string, Promise<void>>();

  constructor(private readonly waitMs: number) {}

  /** Waits for the id to be free, takes it and returns the function that frees it (safe to call twice). */
  async acquire(id: string): Promise<() => void> {
    const deadline = Date.now() + this.waitMs;
    for (let current = this.held.get(id); current !== undefined; current = this.held.get(id)) {
      const remaining = deadline - Date.now();
      if (remaining <= 0) throw keyInUse();
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([current, new Promise<void>((resolve) => (timer = setTimeout(resolve, remaining)))]);
      clearTimeout(timer);
    }
    let free!: () => void;
    const claim = new Promise<void>((resolve) => (free = resolve));
    this.held.set(id, claim);
    return () => {
      if (this.held.get(id) === claim) this.held.delete(id);
      free();
    };
  }
}
