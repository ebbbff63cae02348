import { CreateOwnKey } from '../application/identity/create-own-key.js';
import { SandboxOrders } from '../application/booking/sandbox-orders.js';
import { CreateSandbox } from '../application/admin/create-sandbox.js';
import { FundAgent, GetAgentBilling, GetStatement, SetAgentBilling, SetLowBalanceAlert } from '../application/billing/agent-billing.js';
import { RevokeCreatedKey } from '../application/identity/revoke-created-key.js';
import { ListSecurityEvents } from '../application/security-events/list-security-events.js';
import { RecordKeyRefusal } from '../application/security-events/record-key-refusal.js';
import { CreateAgent } from '../application/admin/create-agent.js';
import { CreateChannel } from '../application/admin/create-channel.js';
import { CreateOperator } from '../application/admin/create-operator.js';
import { ListOperators } from '../application/admin/list-operators.js';
import { ShowOperator } from '../application/admin/show-operator.js';
import { SetOperatorFleet } from '../application/admin/set-operator-fleet.js';
import { IssueOperatorKey, RevokeOperatorKey } from '../application/admin/operator-keys.js';
import { AuthenticateOperator } from '../application/operator/authenticate-operator.js';
import { ListChannels } from '../application/admin/list-channels.js';
import { SetAgentStatus } from '../application/admin/set-agent-status.js';
import { UpdateChannel } from '../application/admin/update-channel.js';
import { IssueApiKey } from '../application/admin/issue-api-key.js';
import { RevokeApiKey } from '../application/admin/revoke-api-key.js';
import { CreateTenant } from '../application/admin/create-tenant.js';
import { CreateTenantUser } from '../application/admin/create-tenant-user.js';
import { ListTenants } from '../application/admin/list-tenants.js';
import { ListTenantUsers } from '../application/admin/list-tenant-users.js';
import { ResetClientSecret } from '../application/admin/reset-client-secret.js';
import { RotateClientSecret } from '../application/admin/rotate-client-secret.js';
import { SetTenantClientSettings } from '../application/admin/set-tenant-client-settings.js';
import { RotateSigningKey } from '../application/admin/rotate-signing-key.js';
import { SetWalletUserDisabled } from '../application/admin/set-wallet-user-disabled.js';
import { ListAgents } from '../application/admin/list-agents.js';
import { DemoBilling, SeedDemo } from '../application/admin/seed-demo.js';
import { SeedWalletDemo } from '../application/admin/seed-wallet-demo.js';
import { SetAgentChannel } from '../application/admin/set-agent-channel.js';
import { ShowAgent } from '../application/admin/show-agent.js';
import { DEFAULT_RETENTION, PurgeExpired } from '../application/admin/purge-expired.js';
import { GetQuote } from '../application/booking/get-quote.js';
import { QuoteBusTrip } from '../application/booking/quote-bus-trip.js';
import { QuoteTransfer } from '../application/booking/quote-transfer.js';
import { GetAgentAccount } from '../application/booking/get-agent-account.js';
import { ListTrips } from '../application/booking/list-trips.js';
import { CancelOrder } from '../application/booking/cancel-order.js';
import { GetOrder } from '../application/booking/get-order.js';
import { ListOrders } from '../application/booking/list-orders.js';
import { PlaceOrder } from '../application/booking/place-order.js';
import { ConfirmHold, ReleaseHold } from '../application/booking/hold-orders.js';
import { OperatorOrders } from '../application/operator/manage-orders.js';
import { RedeemVoucher } from '../application/operator/redeem-voucher.js';
import { GetVoucher } from '../application/booking/get-voucher.js';
import { RecordOrderLapses } from '../application/booking/record-order-lapses.js';
import { PreviewCancellation } from '../application/booking/preview-cancellation.js';
import { SearchCities } from '../application/catalogue/search-cities.js';
import { SearchLocations } from '../application/catalogue/search-locations.js';
import { SeedCatalogue } from '../application/catalogue/seed-catalogue.js';
import { AuthenticateAgent } from '../application/identity/authenticate-agent.js';
import { ListAgentKeys } from '../application/identity/list-agent-keys.js';
import { ListOwnKeys } from '../application/identity/list-own-keys.js';
import { ReportOwnKeyLeaked } from '../application/identity/report-own-key-leaked.js';
import { RollOwnKey } from '../application/identity/roll-own-key.js';
import { AuthenticateClient } from '../application/wallet/authenticate-client.js';
import { DirectoryWalletHolders, VerifyWalletToken } from '../application/wallet/wallet-caller.js';
import { IntrospectToken } from '../application/wallet/introspect-token.js';
import { IssueDelegatedToken } from '../application/wallet/issue-delegated-token.js';
import { IssueMachineToken } from '../application/wallet/issue-machine-token.js';
import { LogIn } from '../application/wallet/log-in.js';
import { MakePayment } from '../application/wallet/make-payment.js';
import { MakeTransfer } from '../application/wallet/make-transfer.js';
import { CreateWalletUser } from '../application/wallet/create-wallet-user.js';
import { GetCurrentWalletUser } from '../application/wallet/get-current-wallet-user.js';
import { GetWalletUser } from '../application/wallet/get-wallet-user.js';
import { ListWalletUsers } from '../application/wallet/list-wallet-users.js';
import { GetMyBalance, GetUserBalance } from '../application/wallet/get-my-balance.js';
import { GetMyStatement, GetUserStatement } from '../application/wallet/get-statement.js';
import {
  AuthorizePayment,
  CaptureAuthorization,
  ExpireAuthorizations,
  ExpireTestAuthorization,
  GetAuthorization,
  ListAuthorizations,
  VoidAuthorization,
} from '../application/wallet/authorizations.js';
import { GetUserBalances } from '../application/wallet/get-user-balances.js';
import { GetTransaction } from '../application/wallet/get-transaction.js';
import { ListTransactions } from '../application/wallet/list-transactions.js';
import { SummarizeTransactions } from '../application/wallet/summarize-transactions.js';
import { RefundPayment } from '../application/wallet/refund-payment.js';
import { LogOut } from '../application/wallet/log-out.js';
import { RevokeToken } from '../application/wallet/revoke-token.js';
import { TopUp } from '../application/wallet/top-up.js';
import { FundTestUser } from '../application/wallet/fund-test-user.js';
import { CheckDpopProof } from '../application/wallet/check-dpop-proof.js';
import { ExchangeToken } from '../application/wallet/exchange-token.js';
import { DeleteWebhookEndpoint } from '../application/webhooks/delete-webhook-endpoint.js';
import { GetWebhookEndpoint } from '../application/webhooks/get-webhook-endpoint.js';
import { ListWebhookDeliveries } from '../application/webhooks/list-webhook-deliveries.js';
import { ListWebhookEndpoints } from '../application/webhooks/list-webhook-endpoints.js';
import { RegisterWebhookEndpoint } from '../application/webhooks/register-webhook-endpoint.js';
import { RetryWebhookDelivery } from '../application/webhooks/retry-webhook-delivery.js';
import { ReadEventFeed } from '../application/webhooks/read-event-feed.js';
import { SendTestWebhook } from '../application/webhooks/send-test-webhook.js';
import { IdempotentWrites } from '../application/idempotent-writes.js';
import { DEFAULT_QUOTE_TTL_SECONDS } from './defaults.js';
import type { Ports } from './ports.js';

/** What the core takes besides its ports. */
export interface CoreOptions {
  /** How long a quote can be ordered (default 15 minutes, never past the trip's start). */
  readonly quoteTtlSeconds?: number;
  /** Called when an operator retries a delivery, so a delivery worker can send it at once. */
  readonly wakeDeliveries?: () => void;
  /** Days delivered and failed webhook deliveries are kept (default 30). */
  readonly webhookRetentionDays?: number;
  /** Days security events are kept (default 400). */
  readonly securityEventRetentionDays?: number;
  /**
   * The issuer and the token endpoint's URL: the audiences client assertions and subject tokens
   * must name. Without them `private_key_jwt` and the token exchange refuse every JWT. With the
   * tokens' audience, a token exchange may name it as its `audience` or `resource`.
   */
  readonly oauth?: { readonly issuer: string; readonly tokenEndpoint: string; readonly tokenAudience?: string };
}

/** The public catalogue: search and the shipped demo data. */
export const catalogueUseCases = (ports: Ports) => ({
  searchLocations: new SearchLocations(ports.catalogue),
  searchCities: new SearchCities(ports.catalogue),
  seed: new SeedCatalogue(ports.catalogue, ports.catalogueData),
});

/** The booking flow of an authenticated agent: trips, quotes, holds, orders and cancellation. */
export const bookingUseCases = (ports: Ports, options: CoreOptions = {}) => {
  const { tariffs, inventory, quotes, orders, agentDirectory, ids, clock } = ports;
  const policy = { ttlSeconds: options.quoteTtlSeconds ?? DEFAULT_QUOTE_TTL_SECONDS };
  return {
    getAgentAccount: new GetAgentAccount(),
    listTrips: new ListTrips(tariffs, inventory, clock),
    quoteTransfer: new QuoteTransfer(tariffs, inventory, quotes, ids, clock, policy),
    quoteBusTrip: new QuoteBusTrip(tariffs, inventory, quotes, ids, clock, policy),
    getQuote: new GetQuote(quotes),
    placeOrder: new PlaceOrder(quotes, orders, tariffs, ids, clock, ports.unitOfWork, ports.agentAccounts),
    getOrder: new GetOrder(orders, clock),
    listOrders: new ListOrders(orders, clock),
    confirmHold: new ConfirmHold(orders, clock, ports.unitOfWork, ports.agentAccounts),
    releaseHold: new ReleaseHold(orders, clock, ports.unitOfWork, ports.agentAccounts),
    cancelOrder: new CancelOrder(orders, clock, ports.unitOfWork, ports.agentAccounts),
    previewCancellation: new PreviewCancellation(orders, agentDirectory, clock),
    /** What an operator does with the orders of its products, over its own surface. */
    operatorOrders: new OperatorOrders(orders, agentDirectory, clock, ports.unitOfWork, ports.agentAccounts),
    recordOrderLapses: new RecordOrderLapses(orders, clock, ports.agentAccounts),
    /** The booking sandbox's test helpers: the operator's answers and the clock, for a sandbox agent's own orders. */
    sandboxOrders: new SandboxOrders(
      orders,
      clock,
      ports.unitOfWork,
      ports.agentAccounts,
      new FundAgent(ports.agentAccounts, agentDirectory, ids, clock),
    ),
    /** The agent's account in the ledger (CONTRACT §6.4): its billing and statements. */
    getAgentBilling: new GetAgentBilling(ports.agentAccounts, clock),
    statements: new GetStatement(ports.agentAccounts, agentDirectory, ports.operators),
    getVoucher: new GetVoucher(orders, tariffs, ports.voucherCodes, ports.voucherDocuments, clock),
    /** An operator takes a traveller's voucher, once. */
    redeemVoucher: new RedeemVoucher(ports.voucherCodes, ports.voucherRedemptions, clock, ports.unitOfWork),
  };
};

/**
 * Who is calling: agents by API key (and their own keys), wallet tenants by client credentials,
 * wallet users by password or delegation; tokens issued, verified, revoked; a tenant's wallet
 * users. Past authentication, each use case takes the caller's principal.
 */
export const identityUseCases = (ports: Ports, options: CoreOptions = {}) => {
  const { agentDirectory, agentResolver, keyUsage, tenants, secretHasher, passwordHasher, ids, random, clock, ipRanges } = ports;
  const { tokenIssuer, tokenVerifier, tokenRevocations, loginThrottle, commonPasswords, replayGuard, tenantJwts } = ports;
  const checkDpopProof = new CheckDpopProof(ports.dpopProofs, replayGuard, clock);
  const verifyWalletToken = new VerifyWalletToken(tokenVerifier, tenants, tokenRevocations, checkDpopProof);
  const oauth = options.oauth ?? null;
  const authenticateClient = new AuthenticateClient(
    tenants,
    secretHasher,
    clock,
    oauth === null ? null : { verifier: tenantJwts, replay: replayGuard, audiences: [oauth.issuer, oauth.tokenEndpoint] },
  );
  const issueDelegatedToken = new IssueDelegatedToken(tenants, tokenIssuer, ids, clock, ports.securityEvents, checkDpopProof);
  return {
    authenticateAgent: new AuthenticateAgent(agentResolver, secretHasher, clock, keyUsage),
    // The operator surface's keys: a separate identity, resolved through the same kind of cache.
    authenticateOperator: new AuthenticateOperator(ports.operatorKeys, secretHasher),
    listOwnKeys: new ListOwnKeys(new ListAgentKeys(agentDirectory, clock, keyUsage)),
    rollOwnKey: new RollOwnKey(agentDirectory, ids, random, secretHasher, clock),
    reportOwnKeyLeaked: new ReportOwnKeyLeaked(new RevokeApiKey(agentDirectory, clock), clock),
    createOwnKey: new CreateOwnKey(agentDirectory, ids, random, secretHasher, clock, ipRanges),
    revokeCreatedKey: new RevokeCreatedKey(agentDirectory, clock),
    recordKeyRefusal: new RecordKeyRefusal(ports.securityEvents, clock),
    listSecurityEvents: new ListSecurityEvents(ports.securityEvents),
    verifyWalletToken,
    authenticateClient,
    checkDpopProof,
    issueMachineToken: new IssueMachineToken(authenticateClient, tokenIssuer, checkDpopProof),
    issueDelegatedToken,
    // Without the issuer no subject token can name it as its audience: every one is invalid_grant.
    // `audience` and `resource` may name only the audience the user token is for.
    exchangeToken: new ExchangeToken(
      tenantJwts,
      replayGuard,
      issueDelegatedToken,
      clock,
      oauth?.issuer ?? '',
      oauth?.tokenAudience === undefined ? [] : [oauth.tokenAudience],
    ),
    logIn: new LogIn(tenants, passwordHasher, loginThrottle, tokenIssuer, clock, ports.securityEvents, checkDpopProof),
    logOut: new LogOut(tokenRevocations, clock),
    revokeToken: new RevokeToken(tokenVerifier, tokenRevocations, clock),
    introspectToken: new IntrospectToken(verifyWalletToken),
    createWalletUser: new CreateWalletUser(new CreateTenantUser(tenants, passwordHasher, ids, clock, commonPasswords)),
    listWalletUsers: new ListWalletUsers(tenants),
    getWalletUser: new GetWalletUser(tenants),
    getCurrentWalletUser: new GetCurrentWalletUser(tenants),
  };
};

/** Wallet money: top-ups, payments, transfers, refunds, balances and the transaction history. */
export const walletUseCases = (ports: Ports) => {
  const { ledger, transactions, ids, clock, unitOfWork } = ports;
  const holders = new DirectoryWalletHolders(ports.tenants);
  const topUp = new TopUp(ledger, holders, ids, clock);
  return {
    topUp,
    fundTestUser: new FundTestUser(ports.tenants, topUp),
    makePayment: new MakePayment(ledger, holders, ids, clock),
    makeTransfer: new MakeTransfer(ledger, holders, ids, clock),
    refundPayment: new RefundPayment(ledger, holders, ids, clock),
    getMyBalance: new GetMyBalance(ledger, ports.pendingTransfers, holders, clock),
    getUserBalance: new GetUserBalance(ledger, ports.pendingTransfers, holders, clock),
    getUserBalances: new GetUserBalances(ledger, holders),
    getMyStatement: new GetMyStatement(ledger, holders, clock),
    getUserStatement: new GetUserStatement(ledger, holders, clock),
    authorize: new AuthorizePayment(ports.pendingTransfers, holders, ids, clock, unitOfWork),
    captureAuthorization: new CaptureAuthorization(ports.pendingTransfers, holders, ids, clock, unitOfWork),
    voidAuthorization: new VoidAuthorization(ports.pendingTransfers, clock, unitOfWork),
    expireTestAuthorization: new ExpireTestAuthorization(ports.tenants, ports.pendingTransfers, clock, unitOfWork),
    getAuthorization: new GetAuthorization(ports.pendingTransfers, clock),
    listAuthorizations: new ListAuthorizations(ports.pendingTransfers, clock),
    expireAuthorizations: new ExpireAuthorizations(ports.pendingTransfers, clock),
    listTransactions: new ListTransactions(transactions),
    getTransaction: new GetTransaction(transactions),
    summarizeTransactions: new SummarizeTransactions(transactions),
  };
};

/** Webhook endpoints of agents and tenants, and their deliveries. */
export const webhookUseCases = (ports: Ports, options: CoreOptions = {}) => {
  const { webhooks, webhookUrlGuard, webhookSealer, webhookSamples, random, ids, clock } = ports;
  const wake = options.wakeDeliveries ?? (() => undefined);
  return {
    register: new RegisterWebhookEndpoint(webhooks, webhookUrlGuard, webhookSealer, random, ids, clock),
    list: new ListWebhookEndpoints(webhooks),
    get: new GetWebhookEndpoint(webhooks),
    remove: new DeleteWebhookEndpoint(webhooks, clock),
    deliveries: new ListWebhookDeliveries(webhooks),
    retry: new RetryWebhookDelivery(webhooks, wake),
    sendTest: new SendTestWebhook(webhooks, webhookSamples, ids, clock, wake),
    feed: new ReadEventFeed(webhooks),
  };
};

/**
 * What an operator does: channels, agents and their keys, tenants and their users, signing keys
 * and the demo data. The operator is trusted and names what it acts on by id (`agentId`,
 * `tenantId`, `keyId`…); these are the command line's, never a caller's. Shares the catalogue
 * seed with the catalogue area.
 */
export const adminUseCases = (
  ports: Ports,
  areas: { readonly catalogue: CatalogueUseCases },
  options: { readonly webhookRetentionDays?: number; readonly securityEventRetentionDays?: number } = {},
) => {
  const { agentDirectory, keyUsage, tenants, ids, random, secretHasher, passwordHasher, commonPasswords, clock, ipRanges } = ports;
  const createChannel = new CreateChannel(agentDirectory);
  const createAgent = new CreateAgent(agentDirectory, ids, clock);
  const fundAgent = new FundAgent(ports.agentAccounts, agentDirectory, ids, clock);
  const setAgentBilling = new SetAgentBilling(ports.agentAccounts, agentDirectory, clock);
  const issueApiKey = new IssueApiKey(agentDirectory, ids, random, secretHasher, clock, ipRanges);
  const createTenant = new CreateTenant(tenants, ids, random, secretHasher, clock);
  const resetClientSecret = new ResetClientSecret(tenants, random, secretHasher);
  const createWalletUser = new CreateTenantUser(tenants, passwordHasher, ids, clock, commonPasswords);
  const revokeApiKey = new RevokeApiKey(agentDirectory, clock);
  const walletDemo = new SeedWalletDemo(tenants, createTenant, resetClientSecret, createWalletUser, passwordHasher, random);
  const createOperator = new CreateOperator(ports.operators);
  const issueOperatorKey = new IssueOperatorKey(ports.operatorKeys, ids, random, secretHasher, clock, ports.operators);
  return {
    seedCatalogue: areas.catalogue.seed,
    createChannel,
    updateChannel: new UpdateChannel(agentDirectory),
    listChannels: new ListChannels(agentDirectory),
    listAgentKeys: new ListAgentKeys(agentDirectory, clock, keyUsage),
    createAgent,
    setAgentStatus: new SetAgentStatus(agentDirectory),
    listAgents: new ListAgents(agentDirectory),
    showAgent: new ShowAgent(agentDirectory, clock),
    setAgentChannel: new SetAgentChannel(agentDirectory),
    issueApiKey,
    revokeApiKey,
    listSecurityEvents: new ListSecurityEvents(ports.securityEvents),
    createOperator,
    listOperators: new ListOperators(ports.operators),
    showOperator: new ShowOperator(ports.operators),
    setOperatorFleet: new SetOperatorFleet(ports.operators),
    fundAgent,
    setAgentBilling,
    setLowBalanceAlert: new SetLowBalanceAlert(ports.agentAccounts, agentDirectory, clock),
    statements: new GetStatement(ports.agentAccounts, agentDirectory, ports.operators),
    issueOperatorKey,
    createSandbox: new CreateSandbox(
      agentDirectory,
      createChannel,
      createAgent,
      issueApiKey,
      setAgentBilling,
      fundAgent,
      createTenant,
      createWalletUser,
      createOperator,
      issueOperatorKey,
      { writer: ports.catalogue, tariffs: ports.tariffs },
      random,
    ),
    revokeOperatorKey: new RevokeOperatorKey(ports.operatorKeys, clock),
    seedDemo: new SeedDemo(
      areas.catalogue.seed,
      agentDirectory,
      createChannel,
      createAgent,
      issueApiKey,
      revokeApiKey,
      clock,
      [walletDemo],
      new DemoBilling(ports.agentAccounts, setAgentBilling, fundAgent, clock),
    ),
    createTenant,
    resetClientSecret,
    createWalletUser,
    rotateSigningKey: new RotateSigningKey(ports.signingKeys),
    listTenants: new ListTenants(tenants, clock),
    rotateClientSecret: new RotateClientSecret(tenants, random, secretHasher, clock),
    listTenantUsers: new ListTenantUsers(tenants),
    setWalletUserDisabled: new SetWalletUserDisabled(tenants, clock),
    setTenantClientSettings: new SetTenantClientSettings(tenants),
    purgeExpired: new PurgeExpired(
      ports.webhooks,
      ports.idempotency,
      clock,
      {
        ...DEFAULT_RETENTION,
        ...(options.webhookRetentionDays === undefined ? {} : { webhookRetentionDays: options.webhookRetentionDays }),
        ...(options.securityEventRetentionDays === undefined ? {} : { securityEventRetentionDays: options.securityEventRetentionDays }),
      },
      ports.securityEvents,
      ports.replayGuard,
    ),
  };
};

export type CatalogueUseCases = ReturnType<typeof catalogueUseCases>;
export type BookingUseCases = ReturnType<typeof bookingUseCases>;
export type IdentityUseCases = ReturnType<typeof identityUseCases>;
export type WalletUseCases = ReturnType<typeof walletUseCases>;
export type WebhookUseCases = ReturnType<typeof webhookUseCases>;
export type AdminUseCases = ReturnType<typeof adminUseCases>;

/**
 * Every use case of the service, grouped by area. `booking`, `identity`, `wallet` and `webhooks`
 * are the callers' (past authentication, each takes the caller's principal and checks what it
 * owns); `catalogue` is public; `admin` is the operator's.
 */
export interface Core {
  readonly catalogue: CatalogueUseCases;
  readonly booking: BookingUseCases;
  readonly identity: IdentityUseCases;
  readonly wallet: WalletUseCases;
  readonly webhooks: WebhookUseCases;
  readonly admin: AdminUseCases;
  /**
   * Writes made once per idempotency key: the claim of the key, the write and its stored answer
   * in one unit of work. What the HTTP layer's `Idempotency-Key` runs on; an embedder's once-only
   * writes run on it too.
   */
  readonly idempotentWrites: IdempotentWrites;
}

/** The one idempotency mechanism on these ports. */
export const idempotentWritesOf = (ports: Ports): IdempotentWrites =>
  new IdempotentWrites(ports.unitOfWork, ports.idempotency, ports.clock, ports.oneStatementWrites);
