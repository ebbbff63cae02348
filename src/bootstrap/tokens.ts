import type { ServiceIdentifier } from 'inversify';
import type { RequestHandler, Router } from 'express';
import type { Logger } from 'pino';
import type { Knex } from 'knex';
import type { Config } from './config.js';
import type { Database } from '../adapters/knex/database.js';
import type { Clock } from '../domain/shared/clock.port.js';
import type { IdGenerator } from '../domain/shared/ids.port.js';
import type { RandomSource, SecretHasher } from '../domain/shared/secrets.port.js';
import type { AgentResolver } from '../domain/identity/agent-resolver.port.js';
import type { AgentDirectory } from '../domain/identity/agent-directory.port.js';
import type { CatalogueReader, CatalogueWriter } from '../domain/catalogue/catalogue.port.js';
import type { Catalogue } from '../domain/catalogue/catalogue.js';
import type { AuthenticateAgent } from '../application/identity/authenticate-agent.js';
import type { GetAgentAccount } from '../application/booking/get-agent-account.js';
import type { SearchCities, SearchLocations } from '../application/catalogue/search-catalogue.js';
import type { SeedCatalogue } from '../application/catalogue/seed-catalogue.js';
import type { CreateAgent, CreateChannel, SetAgentStatus } from '../application/admin/manage-agents.js';
import type { IssueApiKey, RevokeApiKey } from '../application/admin/manage-keys.js';
import type { DemoContribution, SeedDemo } from '../application/admin/seed-demo.js';
import type { Readiness } from '../adapters/http/health.routes.js';
import type { Lifecycle } from './lifecycle.js';
import type { RateLimits } from '../adapters/http/rate-limits.js';

const token = <T>(name: string): ServiceIdentifier<T> => Symbol.for(name) as ServiceIdentifier<T>;

/** Every service identifier of the container. Areas add theirs here. */
export const TOKENS = {
  // infrastructure
  Config: token<Config>('Config'),
  Logger: token<Logger>('Logger'),
  /** The database, or null when persistence is in memory. */
  Database: token<Database | null>('Database'),
  Knex: token<Knex>('Knex'),
  Lifecycle: token<Lifecycle>('Lifecycle'),
  Clock: token<Clock>('Clock'),
  Ids: token<IdGenerator>('Ids'),
  Random: token<RandomSource>('Random'),
  SecretHasher: token<SecretHasher>('SecretHasher'),
  // identity
  AgentResolver: token<AgentResolver>('AgentResolver'),
  AgentDirectory: token<AgentDirectory>('AgentDirectory'),
  AuthenticateAgent: token<AuthenticateAgent>('AuthenticateAgent'),
  GetAgentAccount: token<GetAgentAccount>('GetAgentAccount'),
  CreateChannel: token<CreateChannel>('CreateChannel'),
  CreateAgent: token<CreateAgent>('CreateAgent'),
  SetAgentStatus: token<SetAgentStatus>('SetAgentStatus'),
  IssueApiKey: token<IssueApiKey>('IssueApiKey'),
  RevokeApiKey: token<RevokeApiKey>('RevokeApiKey'),
  SeedDemo: token<SeedDemo>('SeedDemo'),
  /** Several bindings: what other areas add to `demo seed`. */
  DemoContributions: token<DemoContribution>('DemoContributions'),
  // catalogue
  CatalogueData: token<Catalogue>('CatalogueData'),
  CatalogueReader: token<CatalogueReader>('CatalogueReader'),
  CatalogueWriter: token<CatalogueWriter>('CatalogueWriter'),
  SearchLocations: token<SearchLocations>('SearchLocations'),
  SearchCities: token<SearchCities>('SearchCities'),
  SeedCatalogue: token<SeedCatalogue>('SeedCatalogue'),
  // http: several bindings each, collected with getAll in binding order
  RootRouters: token<Router>('RootRouters'),
  BookingPublicRouters: token<Router>('BookingPublicRouters'),
  BookingRouters: token<Router>('BookingRouters'),
  WalletRouters: token<Router>('WalletRouters'),
  BeforeMiddleware: token<RequestHandler>('BeforeMiddleware'),
  Readiness: token<Readiness>('Readiness'),
  // reliability
  /** Named request-rate limiters (`login`, `token`, `delegated`, `payments`, …) to mount on routes. */
  RateLimits: token<RateLimits>('RateLimits'),
  /** Several bindings: booking middleware run after the key check, before the booking routers. */
  BookingAuthenticatedMiddleware: token<RequestHandler>('BookingAuthenticatedMiddleware'),
} as const;
