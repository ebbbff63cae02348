import { ContainerModule } from 'inversify';
import type { Logger } from 'pino';
import { headerGuard, shutdownGate } from '../../adapters/http/request-guards.js';
import { apiSecurityHeaders } from '../../adapters/http/security-headers.js';
import type { Store } from 'express-rate-limit';
import {
  createRateLimits,
  type FailureCount,
  type LimiterName,
  type LimiterRule,
  type RateLimits,
  type SharedCounter,
  type StoreName,
} from '../../adapters/http/rate-limits.js';
import { createRateLimitRedis } from '../../adapters/redis/rate-limit-store.redis.js';
import { RedisFailureCount, RedisSharedCounter } from '../../adapters/redis/rate-limit-counter.redis.js';
import type { Database } from '../../adapters/knex/database.js';
import { KnexRateLimitStore, purgeExpiredRateLimits } from '../../adapters/knex/rate-limit-store.knex.js';
import type { Config, RateLimitStoreConfig } from '../config.js';
import type { ServiceMetrics } from '../../adapters/http/metrics.js';
import type { Lifecycle } from '../lifecycle.js';
import { TOKENS } from '../tokens.js';

const PURGE_EVERY_MS = 60_000;

/**
 * Platform protections: security headers, refusal of ambiguous headers, and the request-rate
 * limiters (counted in Redis so every instance shares them, or in this process's memory when it
 * runs alone). Mounts the per-IP limiter on every public booking operation and the per-key limiter on
 * the rest of the booking surface; binds the named limiters for the other routers to mount.
 */
export const reliabilityModule = (config: Config, db: Database | null): ContainerModule =>
  new ContainerModule(({ bind }) => {
    bind(TOKENS.RateLimits).toResolvedValue(
      (lifecycle: Lifecycle, log: Logger, metrics: ServiceMetrics | undefined) => {
        const logStoreError = storeErrorLog(log);
        const onStoreError = (err: unknown): void => {
          metrics?.rateLimitStoreError();
          logStoreError(err);
        };
        const shared =
          config.rateLimits && config.rateLimitStore.kind === 'redis'
            ? redisCounters(config.rateLimitStore, lifecycle, log, onStoreError)
            : null;
        return createRateLimits({
          enabled: config.rateLimits,
          rules: config.rateLimitRules,
          authFailureRule: config.authFailureRule,
          store: config.rateLimits && shared === null ? rateLimitStores(config.rateLimitStore, db, lifecycle, log) : () => undefined,
          ...(shared ?? {}),
          onStoreError,
          ...(metrics ? { onRefused: (name: string) => metrics.rateLimitRefused(name) } : {}),
        });
      },
      [TOKENS.Lifecycle, TOKENS.Logger, { serviceIdentifier: TOKENS.Metrics, optional: true }],
    );
    // The API's security headers (helmet, set for JSON); the HTML pages add the document set.
    bind(TOKENS.BeforeMiddleware).toConstantValue(apiSecurityHeaders);
    // A stopping service refuses new work (503 shutting-down) once its stop has begun in earnest.
    bind(TOKENS.BeforeMiddleware).toResolvedValue((lifecycle: Lifecycle) => shutdownGate(lifecycle), [TOKENS.Lifecycle]);
    bind(TOKENS.BeforeMiddleware).toConstantValue(headerGuard);
    // With rate limits off the limiters are pass-throughs: not mounted, they cost no routing. The
    // per-IP limiter is on each public booking route (the HTTP module's public router).
    if (config.rateLimits) {
      bind(TOKENS.BookingAuthenticatedMiddleware).toResolvedValue((limits: RateLimits) => limits.booking, [TOKENS.RateLimits]);
    }
  });

/**
 * The counts in Redis (one connection for all limiters, connected at start, closed at stop): each
 * instance counts locally and settles with Redis in batches (docs/scaling.md).
 */
function redisCounters(
  choice: { readonly url: string; readonly prefix: string },
  lifecycle: Lifecycle,
  log: Logger,
  onStoreError: (err: unknown) => void,
): {
  counter: (name: LimiterName, rule: LimiterRule) => SharedCounter;
  failureCount: (rule: LimiterRule) => FailureCount;
} {
  const redis = createRateLimitRedis(choice.url);
  // Errors are seen by the calls that fail; the connection's own events are only logged.
  redis.on('error', storeErrorLog(log));
  lifecycle.onStart(async () => {
    // Fail open from the start too: the service serves while Redis is away and limits once it is back.
    await redis
      .connect()
      .catch((err: unknown) =>
        log.error(
          { err: { message: (err as Error).message } },
          'rate-limit store (Redis) unreachable at start: requests pass unlimited until it is back',
        ),
      );
  });
  lifecycle.onStop(async () => {
    redis.disconnect();
  });
  return {
    counter: (name, rule) => new RedisSharedCounter(redis, `${choice.prefix}${name}:`, rule, onStoreError),
    failureCount: (rule) => new RedisFailureCount(redis, `${choice.prefix}authFailures:`, rule),
  };
}

/**
 * The store each limiter counts in: the database (expired windows purged every minute) or this
 * process's memory.
 */
function rateLimitStores(
  choice: RateLimitStoreConfig,
  db: Database | null,
  lifecycle: Lifecycle,
  log: Logger,
): (name: StoreName) => Store | undefined {
  if (choice.kind === 'postgres' && db !== null) {
    lifecycle.every(
      PURGE_EVERY_MS,
      () => purgeExpiredRateLimits(db.knex),
      (err: unknown) => log.warn({ err: { message: (err as Error).message } }, 'rate-limit purge failed'),
    );
    return (name) => new KnexRateLimitStore(db.knex, `${name}:`);
  }
  // In this process's memory: the limiters' own synchronous counters.
  return () => undefined;
}

/** A store failure as a log line, at most one a second: during an outage every request fails. */
function storeErrorLog(log: Logger): (err: unknown) => void {
  let last = 0;
  return (err) => {
    const now = Date.now();
    if (now - last < 1000) return;
    last = now;
    log.warn({ err: { message: (err as Error)?.message } }, 'rate-limit store failed: requests pass unlimited while it does');
  };
}
