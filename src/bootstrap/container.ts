import 'reflect-metadata';
import { Container } from 'inversify';
import type { Express } from 'express';
import type { Logger } from 'pino';
import { createApp } from '../adapters/http/app.js';
import type { Database } from '../adapters/knex/database.js';
import { requireApiKey } from '../adapters/http/api-key.middleware.js';
import type { Config } from './config.js';
import { Lifecycle } from './lifecycle.js';
import type { Ports, PortSet } from './ports.js';
import { TOKENS } from './tokens.js';
import { persistenceModule } from './modules/persistence.module.js';
import {
  adminModule,
  bookingModule,
  catalogueModule,
  coreModule,
  identityModule,
  walletModule,
  webhooksModule,
} from './modules/areas.module.js';
import { httpModule } from './modules/http.module.js';
import { reliabilityModule } from './modules/reliability.module.js';
import { metricsModule } from './modules/metrics.module.js';
import type { Clock } from '../domain/shared/clock.port.js';

/**
 * The composition root: the persistence module binds every port from the one persistence switch
 * (`db === null` means in memory), the area modules bind the use cases on those ports, and the
 * HTTP module binds the routers on those use cases.
 */
export function buildContainer(
  config: Config,
  db: Database | null,
  log: Logger,
  clock?: Clock,
  portOverrides: Partial<Ports> = {},
  portSet?: PortSet,
): Container {
  const container = new Container({ defaultScope: 'Singleton' });
  container.bind(TOKENS.Config).toConstantValue(config);
  container.bind(TOKENS.Logger).toConstantValue(log);
  container.bind(TOKENS.Database).toConstantValue(db);
  container.bind(TOKENS.Lifecycle).toConstantValue(new Lifecycle());
  container.load(
    persistenceModule(config, db, clock, portOverrides, portSet),
    catalogueModule,
    bookingModule(config),
    identityModule,
    walletModule,
    webhooksModule(config),
    adminModule(config),
    coreModule,
    reliabilityModule(config, db),
    httpModule(config),
  );
  if (config.metrics !== null) {
    container.load(metricsModule(config, config.metrics, db));
    container.get(TOKENS.MetricsServer);
  }
  return container;
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
      wallet: all(container, TOKENS.WalletRouters),
      walletBasePath: config.walletBasePath,
      bookingAuthenticated: all(container, TOKENS.BookingAuthenticatedMiddleware),
    },
    container.get(TOKENS.Logger),
  );
}
