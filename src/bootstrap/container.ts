import 'reflect-metadata';
import { Container } from 'inversify';
import type { Express } from 'express';
import type { Logger } from 'pino';
import { createApp } from '../adapters/http/app.js';
import type { Database } from '../adapters/knex/database.js';
import { requireApiKey } from '../adapters/http/api-key.middleware.js';
import type { Config } from './config.js';
import { Lifecycle } from './lifecycle.js';
import { TOKENS } from './tokens.js';
import { coreModule } from './modules/core.module.js';
import { identityModule } from './modules/identity.module.js';
import { catalogueModule } from './modules/catalogue.module.js';
import { idempotencyModule } from './modules/idempotency.module.js';
import { docsModule } from './modules/docs.module.js';
import { bookingModule } from './modules/booking.module.js';
import { walletIdentityModule } from './modules/wallet-identity.module.js';
import { reliabilityModule } from './modules/reliability.module.js';
import { walletLedgerModule } from './modules/wallet-ledger.module.js';
import { metricsModule } from './modules/metrics.module.js';
import { webhooksModule } from './modules/webhooks.module.js';
import { MemoryWebhookStore } from '../adapters/memory/webhooks.memory.js';
import { SystemClock } from '../adapters/crypto/node-crypto.js';
import type { Clock } from '../domain/shared/clock.port.js';

/**
 * The composition root: one module per area, each choosing its adapters from the one
 * persistence switch (`db === null` means in memory).
 */
export function buildContainer(config: Config, db: Database | null, log: Logger, clock: Clock = new SystemClock()): Container {
  const container = new Container({ defaultScope: 'Singleton' });
  container.bind(TOKENS.Config).toConstantValue(config);
  container.bind(TOKENS.Logger).toConstantValue(log);
  container.bind(TOKENS.Database).toConstantValue(db);
  if (db !== null) container.bind(TOKENS.Knex).toConstantValue(db.knex);
  container.bind(TOKENS.Lifecycle).toConstantValue(new Lifecycle());
  // Every rule that depends on the time reads this one clock (tests give one they move).
  container.bind(TOKENS.Clock).toConstantValue(clock);
  // In memory, the stores record their events into the one in-memory webhook store.
  const memoryWebhooks = db === null ? new MemoryWebhookStore(clock) : undefined;
  container.load(
    coreModule,
    idempotencyModule(db),
    identityModule(config, db, memoryWebhooks),
    catalogueModule(db),
    docsModule,
    bookingModule(config, db, memoryWebhooks),
    walletIdentityModule(config, db, memoryWebhooks),
    reliabilityModule(config, db),
    walletLedgerModule(db, memoryWebhooks),
    webhooksModule(config, db, memoryWebhooks),
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
      bookingAuth: requireApiKey(container.get(TOKENS.AuthenticateAgent), container.get(TOKENS.RateLimits).authFailures),
      booking: all(container, TOKENS.BookingRouters),
      wallet: all(container, TOKENS.WalletRouters),
      walletBasePath: config.walletBasePath,
      bookingAuthenticated: all(container, TOKENS.BookingAuthenticatedMiddleware),
    },
    container.get(TOKENS.Logger),
  );
}
