import { ContainerModule } from 'inversify';
import { Router, type RequestHandler } from 'express';
import type { Logger } from 'pino';
import { headerGuard } from '../../adapters/http/header-guard.js';
import { apiSecurityHeaders } from '../../adapters/http/security-headers.js';
import { OPERATIONS } from '../../adapters/http/operations.js';
import { createRateLimits, type RateLimits } from '../../adapters/http/rate-limits.js';
import type { Database } from '../../adapters/knex/database.js';
import { KnexRateLimitStore, purgeExpiredRateLimits } from '../../adapters/knex/rate-limit-store.knex.js';
import type { Config } from '../config.js';
import type { Lifecycle } from '../lifecycle.js';
import { TOKENS } from '../tokens.js';

const PURGE_EVERY_MS = 60_000;

/**
 * Platform protections: security headers, refusal of ambiguous headers, and the request-rate
 * limiters (counted in the database so every instance shares them; in memory when the service
 * is). Mounts the per-IP limiter on every public booking operation and the per-key limiter on
 * the rest of the booking surface; binds the named limiters for the other routers to mount.
 */
export const reliabilityModule = (config: Config, db: Database | null): ContainerModule =>
  new ContainerModule(({ bind }) => {
    bind(TOKENS.RateLimits).toResolvedValue(
      (lifecycle: Lifecycle, log: Logger) => {
        if (db !== null && config.rateLimits) {
          let timer: NodeJS.Timeout | null = null;
          lifecycle.onStart(async () => {
            timer = setInterval(() => {
              purgeExpiredRateLimits(db.knex).catch((err: unknown) =>
                log.warn({ err: { message: (err as Error).message } }, 'rate-limit purge failed'),
              );
            }, PURGE_EVERY_MS);
            timer.unref();
          });
          lifecycle.onStop(async () => {
            if (timer !== null) clearInterval(timer);
          });
        }
        return createRateLimits({
          enabled: config.rateLimits,
          rules: config.rateLimitRules,
          store: (name) => (db === null ? undefined : new KnexRateLimitStore(db.knex, `${name}:`)),
        });
      },
      [TOKENS.Lifecycle, TOKENS.Logger],
    );
    // The API's security headers (helmet, set for JSON); the HTML pages add the document set.
    bind(TOKENS.BeforeMiddleware).toConstantValue(apiSecurityHeaders);
    bind(TOKENS.BeforeMiddleware).toConstantValue(headerGuard);
    // With rate limits off the limiters are pass-throughs: not mounted, they cost no routing.
    if (config.rateLimits) {
      bind(TOKENS.BeforeMiddleware).toResolvedValue((limits: RateLimits) => publicLimits(limits), [TOKENS.RateLimits]);
      bind(TOKENS.BookingAuthenticatedMiddleware).toResolvedValue((limits: RateLimits) => limits.booking, [TOKENS.RateLimits]);
    }
  });

/** The per-IP limiter on every booking operation that takes no key, as published. */
function publicLimits(limits: RateLimits): Router {
  const router = Router();
  for (const op of OPERATIONS) {
    if (op.surface !== 'booking' || op.token !== 'none') continue;
    router[op.method](op.path.replace(/\{([^}]+)\}/g, ':$1'), limits.public);
  }
  return router;
}
