import { Redis } from 'ioredis';

/**
 * A Redis connection for the request-rate limiters, set up to fail fast: a command sent while
 * the connection is down is refused at once (no offline queue), and one that gets no answer
 * within `commandTimeoutMs` fails, so a Redis outage costs a request microseconds and a hung Redis
 * at most that timeout. The timeout is generous because a command that times out lets its
 * request through uncounted: on a machine loaded enough to delay a loopback answer by 250 ms,
 * such requests went over a budget.
 * Commands issued in the same tick go out as one pipeline. It reconnects by itself.
 */
export function createRateLimitRedis(url: string, commandTimeoutMs = 1_000): Redis {
  const redis = new Redis(url, {
    lazyConnect: true,
    enableOfflineQueue: false,
    enableAutoPipelining: true,
    maxRetriesPerRequest: 0,
    commandTimeout: commandTimeoutMs,
    connectTimeout: 1_000,
    retryStrategy: (attempt) => Math.min(attempt * 100, 1_000),
    connectionName: 'pbw-rate-limits',
  });
  // Each limiter's store listens for reconnections.
  redis.setMaxListeners(50);
  return redis;
}
