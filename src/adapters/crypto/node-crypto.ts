import { createHash, randomBytes } from 'node:crypto';
import type { IdGenerator, IdPrefix } from '../../domain/shared/ids.port.js';
import type { RandomSource, SecretHasher } from '../../domain/shared/secrets.port.js';
import type { Clock } from '../../domain/shared/clock.port.js';

/**
 * SHA-256 of a secret. The secrets hashed here carry at least 256 random bits, so a fast hash is
 * as strong as a slow one and keeps per-request lookups cheap; low-entropy passwords use scrypt.
 */
export class Sha256Hasher implements SecretHasher {
  hash(secret: string): string {
    return createHash('sha256').update(secret, 'utf8').digest('hex');
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

/**
 * Ids of the form `<prefix>_<10 chars of milliseconds><16 random chars>` (Crockford base32):
 * unique without coordination and ordered by creation time.
 */
export class TimeSortableIds implements IdGenerator {
  next(prefix: IdPrefix): string {
    let t = Date.now();
    let time = '';
    for (let i = 0; i < 10; i++) {
      time = CROCKFORD[t % 32] + time;
      t = Math.floor(t / 32);
    }
    const bytes = randomBytes(16);
    let rand = '';
    for (const b of bytes) rand += CROCKFORD[b & 31];
    return `${prefix}_${time}${rand}`;
  }
}
