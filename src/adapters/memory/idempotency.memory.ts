import {
  IDEMPOTENCY_STALE_AFTER_MS,
  type IdempotencyClaim,
  type IdempotencyRequest,
  type IdempotencyStore,
  type StoredResponse,
} from '../../domain/shared/idempotency.port.js';
import { keyInUse, keyReused } from '../../domain/shared/idempotency.js';

interface Entry {
  fingerprint: string;
  state: 'IN_PROGRESS' | 'DONE';
  response: StoredResponse | null;
  createdAt: number;
  claimedAt: number;
}

/** Idempotency keys in process memory, with the same decisions as PostgreSQL. */
export class MemoryIdempotencyStore implements IdempotencyStore {
  private readonly entries = new Map<string, Entry>();

  async claim(r: IdempotencyRequest, now: Date): Promise<IdempotencyClaim> {
    const id = `${r.scope}\u0000${r.key}`;
    const entry = this.entries.get(id);
    const t = now.getTime();
    if (entry === undefined) {
      this.entries.set(id, { fingerprint: r.fingerprint, state: 'IN_PROGRESS', response: null, createdAt: t, claimedAt: t });
      return { state: 'claimed' };
    }
    if (entry.fingerprint !== r.fingerprint) throw keyReused();
    if (entry.state === 'IN_PROGRESS') {
      if (entry.claimedAt < t - IDEMPOTENCY_STALE_AFTER_MS) {
        entry.claimedAt = t;
        return { state: 'claimed' };
      }
      throw keyInUse();
    }
    return { state: 'replay', response: entry.response! };
  }

  async complete(r: IdempotencyRequest, response: StoredResponse): Promise<void> {
    const entry = this.entries.get(`${r.scope}\u0000${r.key}`);
    if (entry !== undefined && entry.fingerprint === r.fingerprint) {
      entry.state = 'DONE';
      entry.response = response;
    }
  }

  async release(r: IdempotencyRequest): Promise<void> {
    const id = `${r.scope}\u0000${r.key}`;
    const entry = this.entries.get(id);
    if (entry !== undefined && entry.fingerprint === r.fingerprint && entry.state === 'IN_PROGRESS') this.entries.delete(id);
  }

  async purge(before: Date): Promise<number> {
    let n = 0;
    for (const [id, entry] of this.entries) {
      if (entry.createdAt < before.getTime()) {
        this.entries.delete(id);
        n += 1;
      }
    }
    return n;
  }
}
