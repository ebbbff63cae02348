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
import type { IdentityChangeFeed } from '../adapters/knex/identity-change-feed.js';
import type { AgentDirectory } from '../domain/identity/agent-directory.port.js';
import type { CatalogueReader, CatalogueWriter } from '../domain/catalogue/catalogue.port.js';
import type { Catalogue } from '../domain/catalogue/catalogue.js';
import type { AuthenticateAgent } from '../application/identity/authenticate-agent.js';
import type { GetAgentAccount } from '../application/booking/get-agent-account.js';
import type { SearchCities } from '../application/catalogue/search-cities.js';
import type { SearchLocations } from '../application/catalogue/search-locations.js';
import type { SeedCatalogue } from '../application/catalogue/seed-catalogue.js';
import type { CreateAgent } from '../application/admin/create-agent.js';
import type { CreateChannel } from '../application/admin/create-channel.js';
import type { ListChannels } from '../application/admin/list-channels.js';
import type { SetAgentStatus } from '../application/admin/set-agent-status.js';
import type { UpdateChannel } from '../application/admin/update-channel.js';
import type { ListAgentKeys } from '../application/identity/list-agent-keys.js';
import type { ListOwnKeys } from '../application/identity/list-own-keys.js';
import type { ReportOwnKeyLeaked } from '../application/identity/report-own-key-leaked.js';
import type { RollOwnKey } from '../application/identity/roll-own-key.js';
import type { KeyUsageBuffer } from '../adapters/cache/key-usage-buffer.js';
import type { IssueApiKey } from '../application/admin/issue-api-key.js';
import type { RevokeApiKey } from '../application/admin/revoke-api-key.js';
import type { DemoContribution, SeedDemo } from '../application/admin/seed-demo.js';
import type { ListAgents } from '../application/admin/list-agents.js';
import type { ShowAgent } from '../application/admin/show-agent.js';
import type { SetAgentChannel } from '../application/admin/set-agent-channel.js';
import type { Readiness } from '../adapters/http/health.routes.js';
import type { Lifecycle } from './lifecycle.js';
import type { IdempotencyStore } from '../domain/shared/idempotency.port.js';
import type { Idempotent } from '../adapters/http/idempotency.middleware.js';
import type { TariffReader } from '../domain/catalogue/tariff.port.js';
import type { QuoteRepo } from '../domain/booking/quote-repo.port.js';
import type { OrderRepo } from '../domain/booking/order-repo.port.js';
import type { TripInventory } from '../domain/booking/trip-inventory.port.js';
import type { ListTrips } from '../application/booking/list-trips.js';
import type { GetQuote } from '../application/booking/get-quote.js';
import type { QuoteBusTrip } from '../application/booking/quote-bus-trip.js';
import type { QuoteTransfer } from '../application/booking/quote-transfer.js';
import type { CancelOrder } from '../application/booking/cancel-order.js';
import type { GetOrder } from '../application/booking/get-order.js';
import type { ListOrders } from '../application/booking/list-orders.js';
import type { PlaceOrder } from '../application/booking/place-order.js';
import type { PreviewCancellation } from '../application/booking/preview-cancellation.js';
import type { TenantDirectory } from '../domain/identity/tenant-directory.port.js';
import type { PasswordHasher } from '../domain/identity/password-hasher.port.js';
import type { LoginThrottleStore } from '../domain/identity/login-throttle.port.js';
import type { SigningKeyStore } from '../domain/identity/signing-key-store.port.js';
import type { TokenIssuer } from '../domain/identity/token-issuer.port.js';
import type { TokenVerifier } from '../domain/identity/token-verifier.port.js';
import type { SigningKeyRing } from '../adapters/jose/signing-keys.js';
import type { VerifyWalletToken } from '../application/wallet/verify-wallet-token.js';
import type { IssueMachineToken } from '../application/wallet/issue-machine-token.js';
import type { IssueDelegatedToken } from '../application/wallet/issue-delegated-token.js';
import type { LogIn } from '../application/wallet/log-in.js';
import type { CreateWalletUser } from '../application/wallet/create-wallet-user.js';
import type { GetCurrentWalletUser } from '../application/wallet/get-current-wallet-user.js';
import type { GetWalletUser } from '../application/wallet/get-wallet-user.js';
import type { ListWalletUsers } from '../application/wallet/list-wallet-users.js';
import type { CreateTenant } from '../application/admin/create-tenant.js';
import type { ListTenants } from '../application/admin/list-tenants.js';
import type { ListTenantUsers } from '../application/admin/list-tenant-users.js';
import type { ResetClientSecret } from '../application/admin/reset-client-secret.js';
import type { RotateClientSecret } from '../application/admin/rotate-client-secret.js';
import type { RotateSigningKey } from '../application/admin/rotate-signing-key.js';
import type { SetWalletUserDisabled } from '../application/admin/set-wallet-user-disabled.js';
import type { TokenRevocationList } from '../domain/identity/token-revocation.port.js';
import type { AuthenticateClient } from '../application/wallet/authenticate-client.js';
import type { LogOut } from '../application/wallet/log-out.js';
import type { RevokeToken } from '../application/wallet/revoke-token.js';
import type { IntrospectToken } from '../application/wallet/introspect-token.js';
import type { RateLimits } from '../adapters/http/rate-limits.js';
import type { ServiceMetrics } from '../adapters/http/metrics.js';
import type { Ledger } from '../domain/wallet/ledger.port.js';
import type { TransactionReader } from '../domain/wallet/transaction-reader.port.js';
import type { WalletHolders } from '../domain/wallet/wallet-holders.port.js';
import type { TopUp } from '../application/wallet/top-up.js';
import type { MakePayment } from '../application/wallet/make-payment.js';
import type { MakeTransfer } from '../application/wallet/make-transfer.js';
import type { RefundPayment } from '../application/wallet/refund-payment.js';
import type { GetMyBalance } from '../application/wallet/get-my-balance.js';
import type { GetUserBalances } from '../application/wallet/get-user-balances.js';
import type { GetTransaction } from '../application/wallet/get-transaction.js';
import type { ListTransactions } from '../application/wallet/list-transactions.js';
import type { SummarizeTransactions } from '../application/wallet/summarize-transactions.js';

import type { WebhookStore } from '../domain/webhooks/webhook-store.port.js';
import type { SecretSealer, WebhookUrlGuard } from '../domain/webhooks/webhook-ports.port.js';
import type { WebhookDeliveryWorker } from '../adapters/webhooks/delivery-worker.js';
import type { WebhookUseCases } from '../adapters/http/webhooks/webhooks.routes.js';

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
  IdempotencyStore: token<IdempotencyStore>('IdempotencyStore'),
  /** `(scopeOf) => middleware` for write routes that accept an Idempotency-Key. */
  Idempotent: token<Idempotent>('Idempotent'),
  // identity
  AgentResolver: token<AgentResolver>('AgentResolver'),
  /** The database's identity-change notifications (bound only with a database). */
  IdentityChangeFeed: token<IdentityChangeFeed>('IdentityChangeFeed'),
  AgentDirectory: token<AgentDirectory>('AgentDirectory'),
  AuthenticateAgent: token<AuthenticateAgent>('AuthenticateAgent'),
  GetAgentAccount: token<GetAgentAccount>('GetAgentAccount'),
  CreateChannel: token<CreateChannel>('CreateChannel'),
  CreateAgent: token<CreateAgent>('CreateAgent'),
  SetAgentStatus: token<SetAgentStatus>('SetAgentStatus'),
  ListAgents: token<ListAgents>('ListAgents'),
  ShowAgent: token<ShowAgent>('ShowAgent'),
  SetAgentChannel: token<SetAgentChannel>('SetAgentChannel'),
  IssueApiKey: token<IssueApiKey>('IssueApiKey'),
  RevokeApiKey: token<RevokeApiKey>('RevokeApiKey'),
  UpdateChannel: token<UpdateChannel>('UpdateChannel'),
  ListChannels: token<ListChannels>('ListChannels'),
  ListAgentKeys: token<ListAgentKeys>('ListAgentKeys'),
  ListOwnKeys: token<ListOwnKeys>('ListOwnKeys'),
  RollOwnKey: token<RollOwnKey>('RollOwnKey'),
  ReportOwnKeyLeaked: token<ReportOwnKeyLeaked>('ReportOwnKeyLeaked'),
  /** Each instance's record of key uses, written in batches. */
  KeyUsage: token<KeyUsageBuffer>('KeyUsage'),
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
  // booking flow
  TariffReader: token<TariffReader>('TariffReader'),
  QuoteRepo: token<QuoteRepo>('QuoteRepo'),
  OrderRepo: token<OrderRepo>('OrderRepo'),
  TripInventory: token<TripInventory>('TripInventory'),
  ListTrips: token<ListTrips>('ListTrips'),
  QuoteTransfer: token<QuoteTransfer>('QuoteTransfer'),
  QuoteBusTrip: token<QuoteBusTrip>('QuoteBusTrip'),
  GetQuote: token<GetQuote>('GetQuote'),
  PlaceOrder: token<PlaceOrder>('PlaceOrder'),
  GetOrder: token<GetOrder>('GetOrder'),
  ListOrders: token<ListOrders>('ListOrders'),
  CancelOrder: token<CancelOrder>('CancelOrder'),
  PreviewCancellation: token<PreviewCancellation>('PreviewCancellation'),
  // wallet identity
  TenantDirectory: token<TenantDirectory>('TenantDirectory'),
  PasswordHasher: token<PasswordHasher>('PasswordHasher'),
  LoginThrottle: token<LoginThrottleStore>('LoginThrottle'),
  SigningKeyStore: token<SigningKeyStore>('SigningKeyStore'),
  SigningKeys: token<SigningKeyRing>('SigningKeys'),
  TokenIssuer: token<TokenIssuer>('TokenIssuer'),
  TokenVerifier: token<TokenVerifier>('TokenVerifier'),
  VerifyWalletToken: token<VerifyWalletToken>('VerifyWalletToken'),
  /** `(rule) => RequestHandler`: put `auth('machine' | 'user' | 'either')` on each wallet route. */
  WalletAuth: token<(rule: 'machine' | 'user' | 'either') => RequestHandler>('WalletAuth'),
  IssueMachineToken: token<IssueMachineToken>('IssueMachineToken'),
  IssueDelegatedToken: token<IssueDelegatedToken>('IssueDelegatedToken'),
  LogIn: token<LogIn>('LogIn'),
  CreateWalletUser: token<CreateWalletUser>('CreateWalletUser'),
  ListWalletUsers: token<ListWalletUsers>('ListWalletUsers'),
  GetWalletUser: token<GetWalletUser>('GetWalletUser'),
  GetCurrentWalletUser: token<GetCurrentWalletUser>('GetCurrentWalletUser'),
  CreateTenant: token<CreateTenant>('CreateTenant'),
  ResetClientSecret: token<ResetClientSecret>('ResetClientSecret'),
  RotateSigningKey: token<RotateSigningKey>('RotateSigningKey'),
  TokenRevocations: token<TokenRevocationList>('TokenRevocations'),
  AuthenticateClient: token<AuthenticateClient>('AuthenticateClient'),
  RevokeToken: token<RevokeToken>('RevokeToken'),
  IntrospectToken: token<IntrospectToken>('IntrospectToken'),
  LogOut: token<LogOut>('LogOut'),
  RotateClientSecret: token<RotateClientSecret>('RotateClientSecret'),
  ListTenants: token<ListTenants>('ListTenants'),
  ListTenantUsers: token<ListTenantUsers>('ListTenantUsers'),
  SetWalletUserDisabled: token<SetWalletUserDisabled>('SetWalletUserDisabled'),
  // reliability
  /** Named request-rate limiters (`login`, `token`, `delegated`, `payments`, …) to mount on routes. */
  RateLimits: token<RateLimits>('RateLimits'),
  /** Prometheus metrics; bound only when METRICS_PORT is set. */
  Metrics: token<ServiceMetrics>('Metrics'),
  /** Starts the metrics listener with the service (resolved once when metrics are on). */
  MetricsServer: token<{ readonly url: string | null }>('MetricsServer'),
  /** Several bindings: booking middleware run after the key check, before the booking routers. */
  BookingAuthenticatedMiddleware: token<RequestHandler>('BookingAuthenticatedMiddleware'),
  // wallet money
  Ledger: token<Ledger>('Ledger'),
  TransactionReader: token<TransactionReader>('TransactionReader'),
  WalletHolders: token<WalletHolders>('WalletHolders'),
  TopUp: token<TopUp>('TopUp'),
  MakePayment: token<MakePayment>('MakePayment'),
  MakeTransfer: token<MakeTransfer>('MakeTransfer'),
  RefundPayment: token<RefundPayment>('RefundPayment'),
  GetMyBalance: token<GetMyBalance>('GetMyBalance'),
  GetUserBalances: token<GetUserBalances>('GetUserBalances'),
  ListTransactions: token<ListTransactions>('ListTransactions'),
  GetTransaction: token<GetTransaction>('GetTransaction'),
  SummarizeTransactions: token<SummarizeTransactions>('SummarizeTransactions'),
  // webhooks
  WebhookStore: token<WebhookStore>('WebhookStore'),
  WebhookSealer: token<SecretSealer>('WebhookSealer'),
  WebhookUrlGuard: token<WebhookUrlGuard>('WebhookUrlGuard'),
  WebhookWorker: token<WebhookDeliveryWorker>('WebhookWorker'),
  WebhookUseCases: token<WebhookUseCases>('WebhookUseCases'),
} as const;
