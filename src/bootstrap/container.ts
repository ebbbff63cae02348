import type { Container, ContainerModule } from 'inversify';
import { databaseRefusal } from '../adapters/knex/pg-errors.js';
import type { Express } from 'express';
import { createApp } from '../adapters/http/app.js';
import { requireApiKey, requireOperatorKey } from '../adapters/http/api-key.middleware.js';
import { TOKENS } from './tokens.js';
import { httpModule } from './modules/http.module.js';
import { reliabilityModule } from './modules/reliability.module.js';
import { metricsModule } from './modules/metrics.module.js';

/**
 * The HTTP service on top of the core's composition (`core-container.ts`, the same bindings the
 * admin command line runs on): the reliability module binds the platform protections, the HTTP
 * module the routers on the core's use cases, the metrics module (when METRICS_PORT is set) its
 * listener; `extraModules` (test and chaos compositions only) come last. Returns the app.
 */
export function composeHttp(container: Container, extraModules: readonly ContainerModule[] = []): Express {
  const config = container.get(TOKENS.Config);
  const db = container.get(TOKENS.Database);
  container.load(reliabilityModule(config, db), httpModule(config));
  if (config.metrics !== null) {
    container.load(metricsModule(config, config.metrics));
    container.get(TOKENS.MetricsServer);
  }
  if (extraModules.length > 0) container.load(...extraModules);
  const app = buildApp(container);
  // Behind a load balancer the client address (login throttling, logs) comes from X-Forwarded-For.
  if (config.trustProxyHops > 0) app.set('trust proxy', config.trustProxyHops);
  return app;
}

const all = <T>(container: Container, id: (symbol & { readonly _?: T }) | Parameters<Container['getAll']>[0]): T[] =>
  container.isBound(id) ? (container.getAll(id) as T[]) : [];

/** Builds the HTTP application from everything bound in the container. */
export function buildApp(container: Container): Express {
  const config = container.get(TOKENS.Config);
  return createApp(
    {
      before: all(container, TOKENS.BeforeMiddleware),
      root: all(container, TOKENS.RootRouters),
      bookingPublic: all(container, TOKENS.BookingPublicRouters),
      bookingAuth: requireApiKey(container.get(TOKENS.Core).identity.authenticateAgent, container.get(TOKENS.RateLimits).authFailures),
      booking: all(container, TOKENS.BookingRouters),
      operatorAuth: requireOperatorKey(
        container.get(TOKENS.Core).identity.authenticateOperator,
        container.get(TOKENS.RateLimits).authFailures,
      ),
      operator: all(container, TOKENS.OperatorRouters),
      wallet: all(container, TOKENS.WalletRouters),
      walletBasePath: config.walletBasePath,
      translateError: databaseRefusal,
      bookingAuthenticated: all(container, TOKENS.BookingAuthenticatedMiddleware),
    },
    container.get(TOKENS.Logger),
  );
}
