import { hash, randomBytes } from 'node:crypto';
import type { IdGenerator, IdPrefix } from '../../domain/shared/ids.port.js';
import type { RandomSource, SecretHasher } from '../../domain/shared/secrets.port.js';
import type { Clock } from '../../domain/shared/clock.port.js';

/**
 * SHA-256 of a secret. The secrets hashed here carry at least 256 random bits, so a fast hash is
 * as strong as a slow one and keeps per-request lookups cheap; low-entropy passwords use scrypt.
 * One call, with no Hash object to build and finish: every booking request hashes its key.
 */
export class Sha256Hasher implements SecretHasher {
  hash(secret: string): string {
    return hash('sha256', secret, 'hex');
  }
}

/** node:crypto's CSPRNG. */
export class NodeRandomSource implements RandomSource {
  bytes(length: number): Uint8Array {
    return randomBytes(length);
  }
}

/** The system clock. */
export class SystemClock implements Clock {
  now(): Date {
    return new Date();
  }
}

const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

/** Random bytes per id, drawn from the CSPRNG 256 ids at a time: one call into it per id cost more than the rest of the id. */
const ID_RANDOM_BYTES = 16;

/**
 * Ids of the form `<prefix>_<10 chars of milliseconds><16 random chars>` (Crockford base32):
 * unique without coordination and ordered by creation time. Within one millisecond an instance
 * counts the random part up from the last id (as monotonic ULIDs do), so two ids made one after
 * the other by the same instance sort in the order they were made.
 */
export class TimeSortableIds implements IdGenerator {
  private pool = Buffer.alloc(0);
  private offset = 0;
  private lastMs = -1;
  private lastRandom: number[] = [];

  next(prefix: IdPrefix): string {
    const now = Date.now();
    let digits: number[];
    if (now <= this.lastMs && this.increment(this.lastRandom)) {
      digits = this.lastRandom;
    } else {
      digits = this.fresh();
      this.lastMs = now > this.lastMs ? now : this.lastMs + 1;
    }
    this.lastRandom = digits;
    let t = this.lastMs;
    let time = '';
    for (let i = 0; i < 10; i++) {
      time = CROCKFORD[t % 32] + time;
      t = Math.floor(t / 32);
    }
    let rand = '';
    for (const d of digits) rand += CROCKFORD[d];
    return `${prefix}_${time}${rand}`;
  }

  private fresh(): number[] {
    if (this.offset + ID_RANDOM_BYTES > this.pool.length) {
      this.pool = randomBytes(ID_RANDOM_BYTES * 256);
      this.offset = 0;
    }
    const digits: number[] = [];
    for (let i = this.offset; i < this.offset + ID_RANDOM_BYTES; i++) digits.push(this.pool[i]! & 31);
    this.offset += ID_RANDOM_BYTES;
    return digits;
  }

  /** Adds one to the base-32 digits in place; false when they were all at their largest. */
  private increment(digits: number[]): boolean {
    for (let i = digits.length - 1; i >= 0; i--) {
      if (digits[i]! < 31) {
        digits[i]! += 1;
        return true;
      }
      digits[i] = 0;
    }
    return false;
  }
}
