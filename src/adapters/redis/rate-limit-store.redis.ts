import { Redis } from 'ioredis';
import type { ClientRateLimitInfo, IncrementResponse, Options } from 'express-rate-limit';
import { RedisStore, type RedisReply } from 'rate-limit-redis';

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

/**
 * rate-limit-redis's store (one Lua script per increment: INCR and PEXPIRE atomically, one
 * budget for every instance), made to recover from an outage: the store loads its scripts once at
 * start, and a load that failed because Redis was down would otherwise fail every later call.
 * After any failed call the scripts are loaded again, so the limits return with Redis.
 */
export class RecoveringRedisStore extends RedisStore {
  constructor(
    private readonly redis: Redis,
    prefix: string,
  ) {
    super({ sendCommand: (...args: string[]) => redis.call(args[0] as string, ...args.slice(1)) as Promise<RedisReply>, prefix });
  }

  /** Loads the scripts now if connected, and again at every (re)connection. */
  override async init(options: Options): Promise<void> {
    this.windowMs = options.windowMs;
    this.reload();
    this.redis.on('ready', () => this.reload());
  }

  override async increment(key: string): Promise<IncrementResponse> {
    try {
      return await super.increment(key);
    } catch (err) {
      this.reload();
      throw err;
    }
  }

  /** A key Redis does not hold is no record (the script answers nil, which the store reads as NaN hits). */
  override async get(key: string): Promise<ClientRateLimitInfo | undefined> {
    try {
      const info = await super.get(key);
      return info !== undefined && Number.isFinite(info.totalHits) && info.totalHits > 0 ? info : undefined;
    } catch (err) {
      this.reload();
      throw err;
    }
  }

  /** Loads the scripts again; a failure is seen by the next call, never left unhandled. */
  private reload(): void {
    this.incrementScriptSha = this.loadIncrementScript();
    this.getScriptSha = this.loadGetScript();
    this.incrementScriptSha.catch(() => undefined);
    this.getScriptSha.catch(() => undefined);
  }
}
