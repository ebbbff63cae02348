import { createHash } from 'node:crypto';
import type { Redis } from 'ioredis';
import type { ReplayGuard } from '../../domain/identity/replay-guard.port.js';
import type { Clock } from '../../domain/shared/clock.port.js';
import { DomainError } from '../../domain/shared/errors.js';
import { failFastRedis } from './fail-fast.redis.js';

/**
 * A Redis connection for the replay guard, failing fast like the rate limiters' (`failFastRedis`):
 * while Redis is down a check is refused at once rather than queued.
 */
export function createReplayGuardRedis(url: string, commandTimeoutMs = 1_000): Redis {
  return failFastRedis(url, 'pbw-replay-guard', commandTimeoutMs);
}

/**
 * One-time identifiers in Redis, shared by every instance: `SET key 1 PX ttl NX` is the atomic
 * test-and-set, and Redis forgets the key when it expires (no purge). Keys are
 * `<prefix><namespace>:<SHA-256 of the id>`, so an id of any length costs a fixed-size key.
 * When Redis cannot answer, the check fails (`service-unavailable`) and never falls back to
 * another store, which would not know the identifiers Redis accepted (ADR 0008).
 */
export class RedisReplayGuard implements ReplayGuard {
  constructor(
    private readonly redis: Redis,
    private readonly clock: Clock,
    private readonly prefix: string,
  ) {}

  async useOnce(namespace: string, id: string, expiresAt: Date): Promise<boolean> {
    const ttl = Math.max(1, expiresAt.getTime() - this.clock.now().getTime());
    const key = `${this.prefix}${namespace}:${createHash('sha256').update(id).digest('base64url')}`;
    let answer: string | null;
    try {
      answer = await this.redis.set(key, '1', 'PX', ttl, 'NX');
    } catch (err) {
      throw new DomainError('service-unavailable', { cause: err });
    }
    return answer === 'OK';
  }
}
