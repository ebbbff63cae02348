import type { ServiceIdentifier } from 'inversify';
import type { RequestHandler, Router } from 'express';
import type { Logger } from 'pino';
import type { Config } from './config.js';
import type { Database } from '../adapters/knex/database.js';
import type { Readiness } from '../adapters/http/health.routes.js';
import type { OperationDeps, WalletAuth } from '../adapters/http/operation-router.js';
import type { RateLimits } from '../adapters/http/rate-limits.js';
import type { ServiceMetrics } from '../adapters/http/metrics.js';
import type { WebhookDeliveryWorker } from '../adapters/webhooks/delivery-worker.js';
import type { Lifecycle } from './lifecycle.js';
import type { PortSet } from './ports.js';
import type {
  AdminUseCases,
  BookingUseCases,
  CatalogueUseCases,
  Core,
  CoreOptions,
  IdentityUseCases,
  WalletUseCases,
  WebhookUseCases,
} from './core.js';

const token = <T>(name: string): ServiceIdentifier<T> => Symbol.for(name) as ServiceIdentifier<T>;

/**
 * Every service identifier of the container: the infrastructure, the one port set, one group of
 * use cases per area, and what the HTTP app is assembled from.
 */
export const TOKENS = {
  // infrastructure
  Config: token<Config>('Config'),
  Logger: token<Logger>('Logger'),
  /** The database, or null when persistence is in memory. */
  Database: token<Database | null>('Database'),
  Lifecycle: token<Lifecycle>('Lifecycle'),
  /** Every port, built by the persistence module from the one persistence switch. */
  Ports: token<PortSet>('Ports'),
  // use cases, one group per area
  Catalogue: token<CatalogueUseCases>('Catalogue'),
  Booking: token<BookingUseCases>('Booking'),
  Identity: token<IdentityUseCases>('Identity'),
  Wallet: token<WalletUseCases>('Wallet'),
  Webhooks: token<WebhookUseCases>('Webhooks'),
  Admin: token<AdminUseCases>('Admin'),
  /** Every area together: what the HTTP app and the admin commands run on. */
  Core: token<Core>('Core'),
  /** What the use cases take from the configuration (or from an embedding program). */
  CoreOptions: token<CoreOptions>('CoreOptions'),
  /** Sends webhook deliveries (started with the service when this instance sends). */
  WebhookWorker: token<WebhookDeliveryWorker>('WebhookWorker'),
  // http: several bindings each, collected with getAll in binding order
  RootRouters: token<Router>('RootRouters'),
  BookingPublicRouters: token<Router>('BookingPublicRouters'),
  BookingRouters: token<Router>('BookingRouters'),
  OperatorRouters: token<Router>('OperatorRouters'),
  WalletRouters: token<Router>('WalletRouters'),
  BeforeMiddleware: token<RequestHandler>('BeforeMiddleware'),
  /** Several bindings: booking middleware run after the key check, before the booking routers. */
  BookingAuthenticatedMiddleware: token<RequestHandler>('BookingAuthenticatedMiddleware'),
  Readiness: token<Readiness>('Readiness'),
  /** `(rule) => RequestHandler`: the bearer-token check the wallet declarations' `token` derives. */
  WalletAuth: token<WalletAuth>('WalletAuth'),
  /** What the operation declarations' routers are built on (use cases, auth, limiters, idempotency). */
  OperationDeps: token<OperationDeps>('OperationDeps'),
  /** Named request-rate limiters (`login`, `token`, `delegated`, `payments`, …) the declarations name. */
  RateLimits: token<RateLimits>('RateLimits'),
  /** Prometheus metrics; bound only when METRICS_PORT is set. */
  Metrics: token<ServiceMetrics>('Metrics'),
  /** Starts the metrics listener with the service (resolved once when metrics are on). */
  MetricsServer: token<{ readonly url: string | null }>('MetricsServer'),
} as const;
