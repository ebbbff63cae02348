/**
 * The public entry of `partner-booking-wallet`: the core (every use case, grouped by area) on a
 * port set built in memory or on PostgreSQL. See docs/embedding.md.
 */
export { createCore } from './bootstrap/create-core.js';
export {
  type AdminUseCases,
  type BookingUseCases,
  type CatalogueUseCases,
  type Core,
  type CoreOptions,
  type IdentityUseCases,
  type WalletUseCases,
  type WebhookUseCases,
} from './bootstrap/core.js';
export {
  createMemoryPorts,
  createPostgresPorts,
  type KeyUsagePort,
  type PortOptions,
  type Ports,
  type PortSet,
  type PostgresPortOptions,
  type SigningKeysPort,
} from './bootstrap/ports.js';
export { createHttpService } from './bootstrap/service.js';
export { migrate, openDatabase, type Database, type DatabaseTarget } from './adapters/knex/database.js';
export { DomainError } from './domain/shared/errors.js';
export type { Clock } from './domain/shared/clock.port.js';
export type { AgentPrincipal, MachinePrincipal, WalletPrincipal, WalletUserPrincipal } from './domain/identity/principal.js';
