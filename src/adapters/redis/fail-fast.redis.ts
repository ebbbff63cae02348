import { Redis } from 'ioredis';

/**
 * A Redis connection set up to fail fast: a command sent while the connection is down is refused
 * at once (no offline queue), and one that gets no answer within `commandTimeoutMs` fails.
 * Commands issued in the same tick go out as one pipeline. It reconnects by itself. Its
 * `connectionName` says in Redis what it serves.
 */
export function failFastRedis(url: string, connectionName: string, commandTimeoutMs: number): Redis {
  return new Redis(url, {
    lazyConnect: true,
    enableOfflineQueue: false,
    enableAutoPipelining: true,
    maxRetriesPerRequest: 0,
    commandTimeout: commandTimeoutMs,
    connectTimeout: 1_000,
    retryStrategy: (attempt) => Math.min(attempt * 100, 1_000),
    connectionName,
  });
}
