import type { Redis } from 'ioredis';
import { failFastRedis } from './fail-fast.redis.js';

/**
 * A Redis connection for the request-rate limiters, failing fast (`failFastRedis`), so a Redis
 * outage costs a request microseconds and a hung Redis at most `commandTimeoutMs`. The timeout is
 * generous because a command that times out lets its request through uncounted: on a machine
 * loaded enough to delay a loopback answer by 250 ms, such requests went over a budget.
 */
export function createRateLimitRedis(url: string, commandTimeoutMs = 1_000): Redis {
  const redis = failFastRedis(url, 'pbw-rate-limits', commandTimeoutMs);
  // Each limiter's store listens for reconnections.
  redis.setMaxListeners(50);
  return redis;
}
