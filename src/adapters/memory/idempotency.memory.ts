import {
  IDEMPOTENCY_WAIT_MS,
  type IdempotencyClaim,
  type IdempotencyRequest,
  type IdempotencyStore,
  type StoredResponse,
} from '../../domain/shared/idempotency.port.js';
import { keyReused } from '../../domain/shared/idempotency.js';
import { ProcessClaims } from './process-claims.js';

interface Entry {
  fingerprint: string;
  response: StoredResponse;
  createdAt: number;
}

/**
 * Idempotency keys in process memory, with the same decisions as PostgreSQL: a claim is held by
 * the running request until its unit of work ends (a duplicate waits for it), and only completed
 * keys are kept.
 */
export class MemoryIdempotencyStore implements IdempotencyStore {
  private readonly entries = new Map<string, Entry>();
  private readonly claims: ProcessClaims;

  constructor(options: { waitMs?: number } = {}) {
    this.claims = new ProcessClaims(options.waitMs ?? IDEMPOTENCY_WAIT_MS);
  }

  async claim(r: IdempotencyRequest): Promise<IdempotencyClaim> {
    const id = `${r.scope}\u0000${r.key}`;
    const free = await this.claims.acquire(id);
    const entry = this.entries.get(id);
    if (entry !== undefined) {
      free();
      if (entry.fingerprint !== r.fingerprint) throw keyReused();
      return { state: 'replay', response: entry.response };
    }
    return { state: 'claimed', end: free };
  }

  async complete(r: IdempotencyRequest, response: StoredResponse, now: Date): Promise<void> {
    this.entries.set(`${r.scope}\u0000${r.key}`, { fingerprint: r.fingerprint, response, createdAt: now.getTime() });
  }

  async countBefore(before: Date): Promise<number> {
    let n = 0;
    for (const entry of this.entries.values()) if (entry.createdAt < before.getTime()) n += 1;
    return n;
  }

  async purge(before: Date, batch: number): Promise<number> {
    let n = 0;
    for (const [id, entry] of this.entries) {
      if (n >= batch) break;
      if (entry.createdAt < before.getTime()) {
        this.entries.delete(id);
        n += 1;
      }
    }
    return n;
  }
}
