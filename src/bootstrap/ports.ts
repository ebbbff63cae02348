import type { EventType } from '../domain/webhooks/events.js';
import type { PendingTransfers } from '../domain/wallet/pending-transfers.port.js';
import type { AgentAccounts } from '../domain/billing/agent-accounts.port.js';
import { MemoryAgentAccounts } from '../adapters/memory/agent-accounts.memory.js';
import { KnexAgentAccounts } from '../adapters/knex/agent-accounts.knex.js';
import { MemoryPendingTransfers } from '../adapters/memory/pending-transfers.memory.js';
import { KnexPendingTransfers } from '../adapters/knex/pending-transfers.knex.js';
import type { ReplayGuard } from '../domain/identity/replay-guard.port.js';
import type { IpRangeParser } from '../domain/identity/ip-range.js';
import { ipaddrRanges } from '../adapters/ip/ip-ranges.ipaddr.js';
import { Lifecycle } from './lifecycle.js';
import type { TenantJwtVerifier } from '../domain/identity/tenant-jwt.js';
import type { DpopProofVerifier } from '../domain/identity/dpop.js';
import { JoseTenantJwtVerifier } from '../adapters/jose/tenant-jwt-verifier.jose.js';
import { JoseDpopProofVerifier } from '../adapters/jose/dpop-proof-verifier.jose.js';
import { MemoryReplayGuard } from '../adapters/memory/replay-guard.memory.js';
import { KnexReplayGuard } from '../adapters/knex/replay-guard.knex.js';
import { createReplayGuardRedis, RedisReplayGuard } from '../adapters/redis/replay-guard.redis.js';
import { randomBytes } from 'node:crypto';
import type { Knex } from 'knex';
import type { Logger } from 'pino';
import { AGENT_IDENTITY_TABLES, CachedAgentResolver, type CacheHealth } from '../adapters/cache/agent-resolver.cached.js';
import { ChangeSignal } from '../adapters/cache/change-signal.js';
import { KeyUsageBuffer } from '../adapters/cache/key-usage-buffer.js';
import { CachedTariffReader } from '../adapters/cache/tariff.cached.js';
import { CachedTenantDirectory, WALLET_IDENTITY_TABLES } from '../adapters/cache/tenant-directory.cached.js';
import { FeedTokenRevocationList } from '../adapters/cache/token-revocation-list.cached.js';
import { THAILAND_CATALOGUE } from '../adapters/catalogue/thailand.js';
import { NodeRandomSource, Sha256Hasher, SystemClock, TimeSortableIds } from '../adapters/crypto/node-crypto.js';
import { ScryptPasswordHasher } from '../adapters/crypto/scrypt-password-hasher.js';
import { AesGcmSecretSealer, DeferredSecretSealer } from '../adapters/crypto/secret-sealer.js';
import { SigningKeyRing, type SigningKeySource } from '../adapters/jose/signing-keys.js';
import { JoseTokenIssuer, type TokenSettings } from '../adapters/jose/token-issuer.jose.js';
import { JoseVoucherCodes } from '../adapters/jose/voucher-codes.jose.js';
import { PooledVoucherDocuments } from '../adapters/documents/voucher-documents.js';
import { KnexVoucherRedemptions } from '../adapters/knex/voucher-redemptions.knex.js';
import { MemoryVoucherRedemptions } from '../adapters/memory/voucher-redemptions.memory.js';
import type { VoucherCodes } from '../domain/booking/voucher-codes.port.js';
import type { VoucherDocuments } from '../domain/booking/voucher-documents.port.js';
import type { VoucherRedemptions } from '../domain/booking/voucher-redemptions.port.js';
import { CLOCK_TOLERANCE_SECONDS, JoseTokenVerifier } from '../adapters/jose/token-verifier.jose.js';
import { KnexAgentDirectory } from '../adapters/knex/agent-directory.knex.js';
import { KnexAgentResolver } from '../adapters/knex/agent-resolver.knex.js';
import { KnexCatalogue } from '../adapters/knex/catalogue.knex.js';
import { migrate, openDatabase, postgresKnex, type Database } from '../adapters/knex/database.js';
import { KnexIdempotencyStore } from '../adapters/knex/idempotency.knex.js';
import { KnexUnitOfWork } from '../adapters/knex/unit-of-work.knex.js';
import { IdentityChangeFeed } from '../adapters/knex/identity-change-feed.js';
import { KnexKeyUsageStore } from '../adapters/knex/key-usage.knex.js';
import { KnexLedger } from '../adapters/knex/ledger.knex.js';
import { GroupCommitLedger } from '../adapters/knex/ledger-group-commit.knex.js';
import { KnexLoginThrottle } from '../adapters/knex/login-throttle.knex.js';
import { REVOKED_TOKENS_TABLE } from '../adapters/knex/migrations/0011-oauth-revocation.js';
import { KnexOrderRepo } from '../adapters/knex/order-repo.knex.js';
import { KnexQuoteRepo } from '../adapters/knex/quote-repo.knex.js';
import { KnexSigningKeyStore } from '../adapters/knex/signing-key-store.knex.js';
import { KnexTariffReader } from '../adapters/knex/tariff.knex.js';
import { KnexTenantDirectory } from '../adapters/knex/tenant-directory.knex.js';
import { KnexRevokedTokenStore } from '../adapters/knex/token-revocation.knex.js';
import { KnexTripInventory } from '../adapters/knex/trip-inventory.knex.js';
import { loadSecretsKey } from '../adapters/knex/secrets-key.knex.js';
import { KnexWebhookStore } from '../adapters/knex/webhook-store.knex.js';
import { MemoryOrderRepo, MemoryQuoteRepo } from '../adapters/memory/booking.memory.js';
import { MemoryCatalogue } from '../adapters/memory/catalogue.memory.js';
import { MemoryOperatorDirectory } from '../adapters/memory/operator-directory.memory.js';
import { KnexOperatorDirectory } from '../adapters/knex/operator-directory.knex.js';
import type { OperatorDirectory } from '../domain/catalogue/operator-directory.port.js';
import { MemoryOperatorKeyStore } from '../adapters/memory/operator-keys.memory.js';
import { KnexOperatorKeyStore } from '../adapters/knex/operator-keys.knex.js';
import { CachedOperatorKeyStore, OPERATOR_IDENTITY_TABLES } from '../adapters/cache/operator-key-resolver.cached.js';
import type { OperatorKeyStore } from '../domain/catalogue/operator-keys.port.js';
import { MemoryIdempotencyStore } from '../adapters/memory/idempotency.memory.js';
import { MemoryUnitOfWork } from '../adapters/memory/unit-of-work.memory.js';
import { MemoryIdentityStore } from '../adapters/memory/identity.memory.js';
import { MemorySecurityEvents } from '../adapters/memory/security-events.memory.js';
import { KnexSecurityEvents } from '../adapters/knex/security-events.knex.js';
import type { SecurityEvents } from '../domain/security-events/security-events.port.js';
import type { KeyExpiryNotices } from '../domain/identity/key-expiry.port.js';
import { KnexKeyExpiryNotices } from '../adapters/knex/key-expiry.knex.js';
import { MemoryLedger } from '../adapters/memory/ledger.memory.js';
import { MemoryLoginThrottle } from '../adapters/memory/login-throttle.memory.js';
import { MemorySigningKeyStore } from '../adapters/memory/signing-key-store.memory.js';
import { MemoryTariffReader } from '../adapters/memory/tariff.memory.js';
import { MemoryTenantDirectory } from '../adapters/memory/tenant-directory.memory.js';
import { MemoryRevokedTokenStore } from '../adapters/memory/token-revocation.memory.js';
import { MemoryWebhookStore } from '../adapters/memory/webhooks.memory.js';
import { ZxcvbnCommonPasswords } from '../adapters/passwords/common-passwords.zxcvbn.js';
import { DnsWebhookUrlGuard } from '../adapters/webhooks/url-guard.js';
import {
  DEFAULT_KEY_CACHE,
  DEFAULT_KEY_USAGE_FLUSH_MS,
  DEFAULT_MACHINE_TOKEN_TTL_SECONDS,
  DEFAULT_TOKEN_ISSUER,
  DEFAULT_USER_TOKEN_TTL_SECONDS,
  defaultTokenAudience,
} from './defaults.js';
import type { OrderRepo } from '../domain/booking/order-repo.port.js';
import type { QuoteRepo } from '../domain/booking/quote-repo.port.js';
import type { TripInventory } from '../domain/booking/trip-inventory.port.js';
import type { Catalogue } from '../domain/catalogue/catalogue.js';
import type { CatalogueReader, CatalogueWriter } from '../domain/catalogue/catalogue.port.js';
import type { TariffReader } from '../domain/catalogue/tariff.port.js';
import type { AgentDirectory } from '../domain/identity/agent-directory.port.js';
import type { AgentResolver } from '../domain/identity/agent-resolver.port.js';
import type { CommonPasswords } from '../domain/identity/common-passwords.port.js';
import type { KeyUseRecorder } from '../domain/identity/key-usage.port.js';
import { LOGIN_THROTTLE_WINDOW_SECONDS } from '../domain/identity/login-throttle.js';
import type { LoginThrottleStore } from '../domain/identity/login-throttle.port.js';
import type { PasswordHasher } from '../domain/identity/password-hasher.port.js';
import type { SigningKeyRotation } from '../domain/identity/signing-key-rotation.port.js';
import type { SigningKeyStore } from '../domain/identity/signing-key-store.port.js';
import type { TenantDirectory } from '../domain/identity/tenant-directory.port.js';
import type { TokenIssuer } from '../domain/identity/token-issuer.port.js';
import type { TokenRevocationList } from '../domain/identity/token-revocation.port.js';
import type { TokenVerifier } from '../domain/identity/token-verifier.port.js';
import type { Clock } from '../domain/shared/clock.port.js';
import type { IdempotencyStore } from '../domain/shared/idempotency.port.js';
import type { UnitOfWork } from '../application/unit-of-work.port.js';
import type { OneStatementWrites } from '../application/one-statement-writes.port.js';
import type { IdGenerator } from '../domain/shared/ids.port.js';
import type { RandomSource, SecretHasher } from '../domain/shared/secrets.port.js';
import type { Ledger } from '../domain/wallet/ledger.port.js';
import type { TransactionReader } from '../domain/wallet/transaction-reader.port.js';
import type { SampleEventData, SecretSealer, WebhookUrlGuard } from '../domain/webhooks/webhook-ports.port.js';
import type { WebhookStore } from '../domain/webhooks/webhook-store.port.js';

/** Key uses noted on the request path and written in batches; `flush` writes what is pending now. */
export interface KeyUsagePort extends KeyUseRecorder {
  flush(): Promise<void>;
}

/** The keys that sign wallet tokens: rotated by an operator, published as a JWK Set. */
export interface SigningKeysPort extends SigningKeyRotation {
  jwks(): Promise<{ keys: readonly object[] }>;
}

/**
 * Every port the use cases need, built as one consistent set by `createMemoryPorts` or
 * `createPostgresPorts`. Several ports are faces of one object, and must never be replaced one
 * at a time:
 * - `orders` and `inventory`: the order store is also the seat stock (seats taken are the
 *   orders held);
 * - `catalogue`, `tariffs` and `operators`: tariffs are read from the catalogue that `catalogue`
 *   and `operators` write, and the order store counts vehicles against those fleets;
 * - `ledger` and `transactions`: one ledger records and reads;
 * - `agentDirectory` and `agentResolver`: the resolver's cache is cleared by the directory's
 *   writes (and, on PostgreSQL, by the change feed of every instance);
 * - `tokenIssuer`, `tokenVerifier`, `voucherCodes` and `signingKeys`: one ring of signing keys,
 *   hidden inside the set; rotating it changes what the issuer and vouchers sign with and what
 *   verifies;
 * - `orders` and `voucherRedemptions`: a redemption locks and reads the order the store wrote;
 * - in memory, every store records its events in `webhooks` (the outbox of deliveries).
 */
export interface Ports {
  readonly clock: Clock;
  readonly ids: IdGenerator;
  readonly random: RandomSource;
  readonly secretHasher: SecretHasher;
  /** Reads IP addresses and CIDRs into the ranges the key-policy rules compare. */
  readonly ipRanges: IpRangeParser;
  readonly passwordHasher: PasswordHasher;
  readonly commonPasswords: CommonPasswords;
  readonly idempotency: IdempotencyStore;
  /** Units of work: the writes of a use case (and an idempotency key's claim and answer) commit together. */
  readonly unitOfWork: UnitOfWork;
  /** The shipped demo catalogue that `catalogue.seed` writes. */
  readonly catalogueData: Catalogue;
  readonly catalogue: CatalogueReader & CatalogueWriter;
  readonly tariffs: TariffReader;
  /** The catalogue's operators and fleets (read by `tariffs` and by the order store's vehicle count). */
  readonly operators: OperatorDirectory;
  /**
   * The keys of the operator surface, resolved through the same bounded, change-fed cache as
   * agent keys: its own writes clear it, and on PostgreSQL every instance's change feed.
   */
  readonly operatorKeys: OperatorKeyStore;
  readonly quotes: QuoteRepo;
  readonly orders: OrderRepo;
  readonly inventory: TripInventory;
  /** Vouchers' codes, signed with the token-signing keys the JWKS publishes. */
  readonly voucherCodes: VoucherCodes;
  /** Vouchers' pages and QR images, rendered off the event loop. */
  readonly voucherDocuments: VoucherDocuments;
  /** Vouchers redeemed by their operators, each at most once. */
  readonly voucherRedemptions: VoucherRedemptions;
  readonly agentDirectory: AgentDirectory;
  readonly agentResolver: AgentResolver;
  readonly keyUsage: KeyUsagePort;
  readonly tenants: TenantDirectory;
  readonly loginThrottle: LoginThrottleStore;
  readonly signingKeys: SigningKeysPort;
  readonly tokenIssuer: TokenIssuer;
  readonly tokenVerifier: TokenVerifier;
  readonly tokenRevocations: TokenRevocationList;
  /** One-time identifiers (client assertions, subject tokens, DPoP proofs), shared by every instance. */
  readonly replayGuard: ReplayGuard;
  /** Signature checks of JWTs tenants sign with their registered keys (client assertions, subject tokens). */
  readonly tenantJwts: TenantJwtVerifier;
  /** Signature checks of DPoP proofs (RFC 9449). */
  readonly dpopProofs: DpopProofVerifier;
  readonly ledger: Ledger;
  /**
   * Keyed ledger writes sent with their key's answer as one statement (the group-commit ledger,
   * ADR 0010), or null: every keyed write then runs in a unit of work.
   */
  readonly oneStatementWrites: OneStatementWrites | null;
  /** Money held on ledger accounts (authorizations), counted against their available balance. */
  readonly pendingTransfers: PendingTransfers;
  /** The agents' accounts in the ledger's booking book: the money of every order follows it (CONTRACT §6.4). */
  readonly agentAccounts: AgentAccounts;
  readonly transactions: TransactionReader;
  readonly webhooks: WebhookStore;
  readonly webhookUrlGuard: WebhookUrlGuard;
  readonly webhookSealer: SecretSealer;
  /** The sample `data` of test deliveries (the published files' examples). */
  readonly webhookSamples: SampleEventData;
  /** The security trail; the key stores record into it in their own writes. */
  readonly securityEvents: SecurityEvents;
  /** Claims and records the `api_key.expiring` notices. */
  readonly keyExpiryNotices: KeyExpiryNotices;
}

/** A port set with what keeps it running: start before use, stop when done (both idempotent). */
export interface PortSet extends Ports {
  /** Loads signing keys and revoked tokens, starts change feeds and timers. */
  start(): Promise<void>;
  /** Writes pending key uses, stops feeds and timers; closes the database only if the set opened it. */
  stop(): Promise<void>;
  /** The database's change notifications (null in memory, or on a bare Knex handle). */
  readonly changes: { stop(): Promise<void> } | null;
}

/** What both port sets take; every field has a default fit for development. */
export interface PortOptions {
  /** The clock of every port (default: the system clock). */
  readonly clock?: Clock;
  readonly tokens?: {
    readonly issuer?: string;
    readonly audience?: string;
    readonly machineTokenTtlSeconds?: number;
    readonly userTokenTtlSeconds?: number;
    /** A private JWK or JWK Set that signs tokens; absent: keys are generated and stored with the other state. */
    readonly signingKey?: string | null;
  };
  /** Bounds of the key cache (and, on PostgreSQL, the tenant and user cache). */
  readonly cache?: { readonly maxEntries: number; readonly ttlMs: number };
  /** How often key uses are written (default 30 s). */
  readonly keyUsageFlushMs?: number;
  /**
   * Whether the ledger's top-ups, payments and transfers share statements and commits with other
   * requests' (the group-commit ledger, ADR 0010; PostgreSQL and PGlite). On unless false.
   */
  readonly ledgerGroupCommit?: boolean;
  readonly webhooks?: {
    readonly allowInsecure?: boolean;
    readonly allowPrivate?: boolean;
    /** A URL check's lookup ends after this (default 3000 ms). */
    readonly dnsTimeoutMs?: number;
    /** Name servers for webhook hosts (`ip`, `ip:port`, `[ipv6]:port`); absent or null: the system's. */
    readonly dnsServers?: readonly string[] | null;
    /**
     * 32 bytes (`SECRETS_KEY`) that seal endpoint secrets and, on a database, the token signing
     * keys; absent: generated (in memory), kept in the embedded folder's `secrets.key`, or
     * generated once and kept in the database (PostgreSQL; whoever reads it can open them).
     */
    readonly secretKey?: Buffer | null;
    /** Warn that the sealing key is kept in the database, or was just generated in the embedded folder (a serving instance says it; a command keeps quiet). */
    readonly warnGeneratedKey?: boolean;
  };
  /** Where one-time identifiers are recorded: Redis when given (PostgreSQL sets only), else the set's own store. */
  readonly replay?: { readonly redis?: { readonly url: string; readonly prefix: string } | null };
  readonly log?: Logger;
}

/** Where the PostgreSQL set keeps its state: exactly one of the three. */
export type PostgresPortOptions = PortOptions &
  (
    | { readonly database: Database; readonly connectionString?: never; readonly knex?: never }
    | { readonly connectionString: string; readonly database?: never; readonly knex?: never }
    | { readonly knex: Knex; readonly database?: never; readonly connectionString?: never }
  );

/** The one ring of signing keys the service uses. */
export const WALLET_KEY_RING = 'wallet';
/** How many verified tokens each instance remembers. */
const VERIFIED_TOKEN_CACHE = 10_000;
/** How often expired login-attempt keys are deleted. */
const LOGIN_THROTTLE_PURGE_EVERY_MS = 5 * 60_000;
/** How many units of work (writes, with their idempotency claims) one instance runs at once (others wait for a connection). */
const UNIT_POOL_MAX = 10;

/** The service's defaults (TOKEN_ISSUER, TOKEN_AUDIENCE, MACHINE_ and USER_TOKEN_TTL_SECONDS). */
function tokenSettings(options: PortOptions): TokenSettings {
  const issuer = options.tokens?.issuer ?? DEFAULT_TOKEN_ISSUER;
  return {
    issuer,
    audience: options.tokens?.audience ?? defaultTokenAudience(issuer),
    machineTokenTtlSeconds: options.tokens?.machineTokenTtlSeconds ?? DEFAULT_MACHINE_TOKEN_TTL_SECONDS,
    userTokenTtlSeconds: options.tokens?.userTokenTtlSeconds ?? DEFAULT_USER_TOKEN_TTL_SECONDS,
  };
}

const warnWith = (log: Logger | undefined, what: string) => (err: unknown) =>
  log?.warn({ err: { message: (err as Error)?.message } }, what);

/** The parts both sets build the same way around their stores. */
function commonParts(options: PortOptions, clock: Clock, steps: Lifecycle, stores: { signingKeys: SigningKeySource }) {
  const settings = tokenSettings(options);
  const dnsServers = options.webhooks?.dnsServers ?? null;
  const ring = new SigningKeyRing(stores.signingKeys, clock, {
    retentionSeconds: Math.max(settings.machineTokenTtlSeconds, settings.userTokenTtlSeconds) + CLOCK_TOLERANCE_SECONDS + 60,
  });
  steps.add(() => ring.start());
  const voucherDocuments = new PooledVoucherDocuments();
  steps.add(null, () => voucherDocuments.close());
  return {
    ids: new TimeSortableIds(),
    random: new NodeRandomSource(),
    secretHasher: new Sha256Hasher(),
    ipRanges: ipaddrRanges,
    passwordHasher: new ScryptPasswordHasher(),
    commonPasswords: new ZxcvbnCommonPasswords(),
    catalogueData: THAILAND_CATALOGUE,
    signingKeys: ring,
    tokenIssuer: new JoseTokenIssuer(ring, clock, settings),
    tokenVerifier: new JoseTokenVerifier(ring, clock, settings, { cacheEntries: VERIFIED_TOKEN_CACHE }),
    voucherCodes: new JoseVoucherCodes(ring),
    voucherDocuments,
    tenantJwts: new JoseTenantJwtVerifier(),
    dpopProofs: new JoseDpopProofVerifier(),
    // Drawn from the published examples, loaded on the first test delivery: the admin command
    // line composes these ports and loads no HTTP code.
    webhookSamples: async (type: EventType, at: Date, livemode: boolean) =>
      (await import('../adapters/http/webhooks/sample-events.js')).sampleEventData(type, at, livemode),
    webhookUrlGuard: new DnsWebhookUrlGuard({
      allowInsecure: options.webhooks?.allowInsecure ?? false,
      allowPrivate: options.webhooks?.allowPrivate ?? false,
      ...(options.webhooks?.dnsTimeoutMs === undefined ? {} : { dnsTimeoutMs: options.webhooks.dnsTimeoutMs }),
      ...(dnsServers === null ? {} : { dnsServers }),
    }),
  };
}

function signingKeySource(options: PortOptions, store: SigningKeyStore): SigningKeySource {
  const jwks = options.tokens?.signingKey ?? null;
  return jwks !== null ? { kind: 'configured', jwks } : { kind: 'stored', store, ring: WALLET_KEY_RING };
}

/**
 * Every port in process memory: nothing survives the process, nothing is shared with another.
 * The order store is the seat stock, the tariff reader reads the catalogue, every store records
 * its events in the webhook store, and the token issuer and verifier share one key ring.
 */
export function createMemoryPorts(options: PortOptions = {}): PortSet {
  const clock = options.clock ?? new SystemClock();
  const steps = new Lifecycle();
  const log = options.log;
  const securityEvents = new MemorySecurityEvents();
  const webhooks = new MemoryWebhookStore(clock, securityEvents);
  securityEvents.forwardTo((events) => webhooks.record(events));
  const signal = new ChangeSignal();
  const identity = new MemoryIdentityStore(signal, webhooks, securityEvents);
  const tenants = new MemoryTenantDirectory(webhooks, securityEvents);
  webhooks.modesFrom((owner) => (owner.kind === 'agent' ? identity.livemodeOf(owner.id) : tenants.livemodeOf(owner.id)));
  // The resolver caches like the PostgreSQL one, cleared by the store's own change signal.
  const agentResolver = new CachedAgentResolver(identity, { trusted: true }, options.cache ?? DEFAULT_KEY_CACHE);
  signal.subscribe(() => agentResolver.clear());
  const catalogue = new MemoryCatalogue();
  const operators = new MemoryOperatorDirectory(catalogue);
  const operatorKeys = new CachedOperatorKeyStore(
    new MemoryOperatorKeyStore(operators),
    { trusted: true },
    options.cache ?? DEFAULT_KEY_CACHE,
  );
  const orders = new MemoryOrderRepo(webhooks, identity, catalogue);
  const ledger = new MemoryLedger(webhooks);
  const agentAccounts = new MemoryAgentAccounts(webhooks);
  // A leak report's released holds give their money back, as in the same transaction on PostgreSQL.
  orders.onHoldsReleased((orderIds, at) => void agentAccounts.releaseHolds(orderIds, at).catch(() => undefined));
  const keyUsage = new KeyUsageBuffer(
    identity,
    options.keyUsageFlushMs ?? DEFAULT_KEY_USAGE_FLUSH_MS,
    warnWith(log, 'writing key usage failed'),
  );
  const tokenRevocations = new FeedTokenRevocationList(new MemoryRevokedTokenStore(securityEvents), { trusted: true }, clock);
  const loginThrottle = new MemoryLoginThrottle();
  const idempotency = new MemoryIdempotencyStore();
  const sealer = memorySealer(options);
  const common = commonParts(options, clock, steps, { signingKeys: signingKeySource(options, new MemorySigningKeyStore()) });
  steps.add(() => tokenRevocations.start());
  steps.add(
    () => keyUsage.start(),
    () => keyUsage.stop(),
  );
  purges(steps, { loginThrottle, clock, log });
  return {
    ...common,
    clock,
    idempotency,
    unitOfWork: new MemoryUnitOfWork(),
    catalogue,
    tariffs: new MemoryTariffReader(catalogue),
    operators,
    operatorKeys,
    quotes: new MemoryQuoteRepo(),
    orders,
    inventory: orders,
    voucherRedemptions: new MemoryVoucherRedemptions(orders, webhooks),
    agentDirectory: identity,
    agentResolver,
    keyUsage,
    tenants,
    loginThrottle,
    tokenRevocations,
    replayGuard: new MemoryReplayGuard(clock),
    ledger,
    oneStatementWrites: null,
    pendingTransfers: new MemoryPendingTransfers(ledger, webhooks),
    agentAccounts,
    transactions: ledger,
    webhooks,
    webhookSealer: sealer,
    securityEvents,
    keyExpiryNotices: identity,
    changes: null,
    start: () => steps.start(),
    stop: () => steps.stop(),
  };
}

/**
 * Every port on PostgreSQL (or embedded PGlite): the state every instance shares. Agents, keys,
 * tenants, users and revoked tokens are cached in each instance and kept fresh by the database's
 * change notifications (LISTEN/NOTIFY); on a bare Knex handle there is no feed and the caches
 * are bypassed. With `connectionString` the set opens the database, applies pending migrations
 * and closes it on `stop()`; a given `database` or `knex` is left open.
 */
export async function createPostgresPorts(options: PostgresPortOptions): Promise<PortSet> {
  if (options.connectionString !== undefined) {
    const db = await openDatabase({ kind: 'postgres', url: options.connectionString });
    try {
      await migrate(db);
    } catch (err) {
      await db.close();
      throw err;
    }
    const set = postgresPorts(db.knex, db, options);
    return { ...set, stop: async () => void (await set.stop(), await db.close()) };
  }
  if (options.database !== undefined) return postgresPorts(options.database.knex, options.database, options);
  return postgresPorts(options.knex, null, options);
}

/** The PostgreSQL set on an open database (`db` null: a bare Knex handle, without change feed). */
export function postgresPorts(knex: Knex, db: Database | null, options: PortOptions): PortSet {
  const clock = options.clock ?? new SystemClock();
  const steps = new Lifecycle();
  const log = options.log;
  const cache = options.cache ?? DEFAULT_KEY_CACHE;
  const feed = db === null ? null : new IdentityChangeFeed(db, log);
  const health: CacheHealth = feed ?? { trusted: false };
  const subscribe = (tables: ReadonlySet<string>, onChange: (detail: string | null) => void): void => {
    feed?.subscribe(tables, onChange);
  };
  if (feed !== null)
    steps.add(
      () => feed.start(),
      () => feed.stop(),
    );
  const agentResolver = new CachedAgentResolver(new KnexAgentResolver(knex), health, cache);
  subscribe(AGENT_IDENTITY_TABLES, () => agentResolver.clear());
  const operatorKeys = new CachedOperatorKeyStore(new KnexOperatorKeyStore(knex), health, cache);
  subscribe(OPERATOR_IDENTITY_TABLES, () => operatorKeys.clear());
  // Writes through this instance clear its own cache at once; other instances hear the trigger.
  const agentDirectory = new KnexAgentDirectory(knex, () => agentResolver.clear());
  const tokenRevocations = new FeedTokenRevocationList(new KnexRevokedTokenStore(knex), health, clock);
  subscribe(new Set([REVOKED_TOKENS_TABLE]), (detail) => tokenRevocations.heard(detail));
  steps.add(() => tokenRevocations.start());
  const tenants = new CachedTenantDirectory(new KnexTenantDirectory(knex), health, cache);
  subscribe(WALLET_IDENTITY_TABLES, () => tenants.clear());
  const keyUsage = new KeyUsageBuffer(
    new KnexKeyUsageStore(knex),
    options.keyUsageFlushMs ?? DEFAULT_KEY_USAGE_FLUSH_MS,
    warnWith(log, 'writing key usage failed; kept for the next write'),
  );
  steps.add(
    () => keyUsage.start(),
    () => keyUsage.stop(),
  );
  // Running units of work each hold a connection of a pool of their own, so that requests in
  // them can never take every connection that requests outside them need. On embedded PGlite
  // (one connection) they run on it like everything else: nothing inside one asks the pool.
  const units = db?.target.kind === 'postgres' ? postgresKnex({ ...db.target, poolMax: UNIT_POOL_MAX }) : null;
  if (units !== null) steps.add(null, () => units.destroy());
  const unitOfWork = new KnexUnitOfWork(units ?? knex);
  const idempotency = new KnexIdempotencyStore(knex);
  const loginThrottle = new KnexLoginThrottle(knex);
  purges(steps, { loginThrottle, clock, log });
  const catalogue = new KnexCatalogue(knex);
  const orders = new KnexOrderRepo(knex);
  const knexLedger = new KnexLedger(knex);
  // The service opts in to group commit: top-ups, payments and transfers of concurrent requests
  // share statements and commits, on a connection no unit of work holds (ADR 0010).
  const groupCommit = options.ledgerGroupCommit === false ? null : new GroupCommitLedger(knexLedger, units ?? knex);
  const ledger: Ledger = groupCommit ?? knexLedger;
  // Loaded before the signing keys (a later step), which it opens.
  const sealer = new DeferredSecretSealer();
  steps.add(async () => {
    const folder = db?.target.kind === 'pglite' ? db.target.dataDir : null;
    const { key, source } = await loadSecretsKey(knex, { configured: options.webhooks?.secretKey ?? null, folder });
    sealer.setKey(key);
    if (options.webhooks?.warnGeneratedKey !== true) return;
    if (source.kind === 'database')
      log?.warn(
        'SECRETS_KEY is not set: webhook secrets and token signing keys are sealed with a key generated and kept in the database, ' +
          'so whoever reads the database or a backup of it can open them and sign tokens; set SECRETS_KEY (NODE_ENV=production requires it)',
      );
    if (source.kind === 'file' && source.created)
      log?.warn(
        { file: source.file },
        'a secrets key was generated and kept in the embedded folder: backups do not hold it; keep a copy of it apart from them, or set SECRETS_KEY',
      );
  });
  const common = commonParts(options, clock, steps, { signingKeys: signingKeySource(options, new KnexSigningKeyStore(knex, sealer)) });
  return {
    ...common,
    clock,
    idempotency,
    unitOfWork,
    catalogue,
    // Seconds of lag after a catalogue reload, for no catalogue round trip per quote.
    tariffs: new CachedTariffReader(new KnexTariffReader(knex), { ttlMs: 10_000, maxEntries: 10_000 }),
    operators: new KnexOperatorDirectory(knex),
    operatorKeys,
    quotes: new KnexQuoteRepo(knex),
    orders,
    inventory: new KnexTripInventory(knex),
    voucherRedemptions: new KnexVoucherRedemptions(knex),
    agentDirectory,
    agentResolver,
    keyUsage,
    tenants,
    loginThrottle,
    tokenRevocations,
    replayGuard: replayGuardOf(options, knex, clock, steps),
    ledger,
    oneStatementWrites: groupCommit?.oneStatementWrites() ?? null,
    pendingTransfers: new KnexPendingTransfers(knex),
    agentAccounts: new KnexAgentAccounts(knex),
    transactions: knexLedger,
    webhooks: new KnexWebhookStore(knex),
    webhookSealer: sealer,
    securityEvents: new KnexSecurityEvents(knex),
    keyExpiryNotices: new KnexKeyExpiryNotices(knex),
    changes: feed,
    start: () => steps.start(),
    stop: () => steps.stop(),
  };
}

/**
 * The replay guard of a PostgreSQL set: Redis when configured (its connection opened at start and
 * closed at stop), else the database's table. Either is shared by every instance.
 */
function replayGuardOf(options: PortOptions, knex: Knex, clock: Clock, steps: Lifecycle): ReplayGuard {
  const redis = options.replay?.redis ?? null;
  if (redis === null) return new KnexReplayGuard(knex);
  const connection = createReplayGuardRedis(redis.url);
  // An outage shows as refused checks (service-unavailable); the connection retries by itself.
  connection.on('error', () => undefined);
  steps.add(
    // A Redis down at start is not fatal: checks fail until it answers (ADR 0008).
    () => connection.connect().catch(() => undefined),
    () => void connection.disconnect(),
  );
  return new RedisReplayGuard(connection, clock, redis.prefix);
}

/** In memory: the configured sealer, or one under a key generated for this process alone. */
function memorySealer(options: PortOptions): SecretSealer {
  return new AesGcmSecretSealer(options.webhooks?.secretKey ?? randomBytes(32));
}

/**
 * Deletes expired login-attempt keys every few minutes (anyone can add a key by trying a made-up
 * email, so the store stays bounded by the attempts of the last window). Idempotency records and
 * webhook deliveries past their retention are the retention purge's (`PurgeExpired`).
 */
function purges(steps: Lifecycle, parts: { loginThrottle: LoginThrottleStore; clock: Clock; log: Logger | undefined }): void {
  const { loginThrottle, clock, log } = parts;
  steps.every(
    LOGIN_THROTTLE_PURGE_EVERY_MS,
    () => loginThrottle.purgeExpired(clock.now(), LOGIN_THROTTLE_WINDOW_SECONDS),
    warnWith(log, 'login-attempt purge failed'),
  );
}
