import { ContainerModule } from 'inversify';
import { AuthenticateAgent } from '../../application/identity/authenticate-agent.js';
import { GetAgentAccount } from '../../application/booking/get-agent-account.js';
import { CreateAgent } from '../../application/admin/create-agent.js';
import { CreateChannel } from '../../application/admin/create-channel.js';
import { ListChannels } from '../../application/admin/list-channels.js';
import { SetAgentStatus } from '../../application/admin/set-agent-status.js';
import { UpdateChannel } from '../../application/admin/update-channel.js';
import { ListAgentKeys } from '../../application/identity/list-agent-keys.js';
import { ListOwnKeys } from '../../application/identity/list-own-keys.js';
import { ReportOwnKeyLeaked } from '../../application/identity/report-own-key-leaked.js';
import { RollOwnKey } from '../../application/identity/roll-own-key.js';
import { KeyUsageBuffer } from '../../adapters/cache/key-usage-buffer.js';
import { KnexKeyUsageStore } from '../../adapters/knex/key-usage.knex.js';
import { keyRoutes } from '../../adapters/http/booking/keys.routes.js';
import { agentScopeOf } from '../../adapters/http/idempotency-scopes.js';
import type { Idempotent } from '../../adapters/http/idempotency.middleware.js';
import type { KeyUsageStore } from '../../domain/identity/key-usage.port.js';
import { IssueApiKey } from '../../application/admin/issue-api-key.js';
import { RevokeApiKey } from '../../application/admin/revoke-api-key.js';
import type { SeedCatalogue } from '../../application/catalogue/seed-catalogue.js';
import { SeedDemo, type DemoContribution } from '../../application/admin/seed-demo.js';
import { ListAgents } from '../../application/admin/list-agents.js';
import { ShowAgent } from '../../application/admin/show-agent.js';
import { SetAgentChannel } from '../../application/admin/set-agent-channel.js';
import { AGENT_IDENTITY_TABLES, CachedAgentResolver } from '../../adapters/cache/agent-resolver.cached.js';
import { ChangeSignal } from '../../adapters/cache/change-signal.js';
import { KnexAgentDirectory } from '../../adapters/knex/agent-directory.knex.js';
import { KnexAgentResolver } from '../../adapters/knex/agent-resolver.knex.js';
import { IdentityChangeFeed } from '../../adapters/knex/identity-change-feed.js';
import type { MemoryOutbox } from '../../adapters/memory/webhooks.memory.js';
import { MemoryIdentityStore } from '../../adapters/memory/identity.memory.js';
import { accountRoutes } from '../../adapters/http/booking/account.routes.js';
import type { AgentDirectory } from '../../domain/identity/agent-directory.port.js';
import type { AgentResolver } from '../../domain/identity/agent-resolver.port.js';
import type { Config } from '../config.js';
import type { Database } from '../../adapters/knex/database.js';
import type { Lifecycle } from '../lifecycle.js';
import type { Logger } from 'pino';
import { TOKENS } from '../tokens.js';

/**
 * Agents, channels and keys: the resolver (cached, invalidated by the database's change feed
 * across instances), the operator writes and the booking authentication.
 */
export const identityModule = (config: Config, db: Database | null, outbox?: MemoryOutbox): ContainerModule =>
  new ContainerModule(({ bind }) => {
    let usageStore: KeyUsageStore;
    if (db === null) {
      const signal = new ChangeSignal();
      const store = new MemoryIdentityStore(signal, outbox);
      usageStore = store;
      bind(TOKENS.AgentDirectory).toConstantValue(store);
      bind(TOKENS.AgentResolver).toConstantValue(cached(store, { trusted: true }, config, signal));
    } else {
      usageStore = new KnexKeyUsageStore(db.knex);
      bind(TOKENS.IdentityChangeFeed).toResolvedValue(
        (lifecycle: Lifecycle, log: Logger) => {
          const feed = new IdentityChangeFeed(db, log);
          lifecycle.onStart(() => feed.start());
          lifecycle.onStop(() => feed.stop());
          return feed;
        },
        [TOKENS.Lifecycle, TOKENS.Logger],
      );
      bind(TOKENS.AgentResolver).toResolvedValue(
        (feed: IdentityChangeFeed) => {
          const resolver = new CachedAgentResolver(new KnexAgentResolver(db.knex), feed, cacheOptions(config));
          feed.subscribe(AGENT_IDENTITY_TABLES, () => resolver.clear());
          return resolver;
        },
        [TOKENS.IdentityChangeFeed],
      );
      // Writes through this instance clear its own cache at once; other instances hear the trigger.
      bind(TOKENS.AgentDirectory).toResolvedValue(
        (resolver: AgentResolver) => new KnexAgentDirectory(db.knex, () => (resolver as CachedAgentResolver).clear()),
        [TOKENS.AgentResolver],
      );
    }
    // Key uses are noted in memory on each request and written in one batch per interval.
    bind(TOKENS.KeyUsage).toResolvedValue(
      (lifecycle: Lifecycle, log: Logger) => {
        const buffer = new KeyUsageBuffer(usageStore, config.keyUsageFlushMs, (err) =>
          log.warn({ err: { message: (err as Error).message } }, 'writing key usage failed; kept for the next write'),
        );
        lifecycle.onStart(async () => buffer.start());
        lifecycle.onStop(() => buffer.stop());
        return buffer;
      },
      [TOKENS.Lifecycle, TOKENS.Logger],
    );
    bind(TOKENS.AuthenticateAgent).toResolvedValue(
      (resolver: AgentResolver, hasher, clock, usage: KeyUsageBuffer) => new AuthenticateAgent(resolver, hasher, clock, usage),
      [TOKENS.AgentResolver, TOKENS.SecretHasher, TOKENS.Clock, TOKENS.KeyUsage],
    );
    bind(TOKENS.GetAgentAccount).toConstantValue(new GetAgentAccount());
    bind(TOKENS.CreateChannel).toResolvedValue((d: AgentDirectory) => new CreateChannel(d), [TOKENS.AgentDirectory]);
    bind(TOKENS.CreateAgent).toResolvedValue(
      (d: AgentDirectory, ids, clock) => new CreateAgent(d, ids, clock),
      [TOKENS.AgentDirectory, TOKENS.Ids, TOKENS.Clock],
    );
    bind(TOKENS.UpdateChannel).toResolvedValue((d: AgentDirectory) => new UpdateChannel(d), [TOKENS.AgentDirectory]);
    bind(TOKENS.ListChannels).toResolvedValue((d: AgentDirectory) => new ListChannels(d), [TOKENS.AgentDirectory]);
    bind(TOKENS.ListAgentKeys).toResolvedValue(
      (d: AgentDirectory, clock, usage: KeyUsageBuffer) => new ListAgentKeys(d, clock, usage),
      [TOKENS.AgentDirectory, TOKENS.Clock, TOKENS.KeyUsage],
    );
    bind(TOKENS.ListOwnKeys).toResolvedValue((keys: ListAgentKeys) => new ListOwnKeys(keys), [TOKENS.ListAgentKeys]);
    bind(TOKENS.RollOwnKey).toResolvedValue(
      (d: AgentDirectory, ids, random, hasher, clock) => new RollOwnKey(d, ids, random, hasher, clock),
      [TOKENS.AgentDirectory, TOKENS.Ids, TOKENS.Random, TOKENS.SecretHasher, TOKENS.Clock],
    );
    bind(TOKENS.ReportOwnKeyLeaked).toResolvedValue(
      (revoke: RevokeApiKey, clock) => new ReportOwnKeyLeaked(revoke, clock),
      [TOKENS.RevokeApiKey, TOKENS.Clock],
    );
    bind(TOKENS.SetAgentStatus).toResolvedValue((d: AgentDirectory) => new SetAgentStatus(d), [TOKENS.AgentDirectory]);
    bind(TOKENS.ListAgents).toResolvedValue((d: AgentDirectory) => new ListAgents(d), [TOKENS.AgentDirectory]);
    bind(TOKENS.ShowAgent).toResolvedValue((d: AgentDirectory, clock) => new ShowAgent(d, clock), [TOKENS.AgentDirectory, TOKENS.Clock]);
    bind(TOKENS.SetAgentChannel).toResolvedValue((d: AgentDirectory) => new SetAgentChannel(d), [TOKENS.AgentDirectory]);
    bind(TOKENS.IssueApiKey).toResolvedValue(
      (d: AgentDirectory, ids, random, hasher, clock) => new IssueApiKey(d, ids, random, hasher, clock),
      [TOKENS.AgentDirectory, TOKENS.Ids, TOKENS.Random, TOKENS.SecretHasher, TOKENS.Clock],
    );
    bind(TOKENS.RevokeApiKey).toResolvedValue(
      (d: AgentDirectory, clock) => new RevokeApiKey(d, clock),
      [TOKENS.AgentDirectory, TOKENS.Clock],
    );
    bind(TOKENS.SeedDemo).toResolvedValue<
      [SeedCatalogue, AgentDirectory, CreateChannel, CreateAgent, IssueApiKey, DemoContribution[] | undefined]
    >(
      (seedCatalogue, d: AgentDirectory, createChannel, createAgent, issueKey, contributions: DemoContribution[] | undefined) =>
        new SeedDemo(seedCatalogue, d, createChannel, createAgent, issueKey, contributions ?? []),
      [
        TOKENS.SeedCatalogue,
        TOKENS.AgentDirectory,
        TOKENS.CreateChannel,
        TOKENS.CreateAgent,
        TOKENS.IssueApiKey,
        { isMultiple: true, optional: true, serviceIdentifier: TOKENS.DemoContributions },
      ],
    );
    bind(TOKENS.BookingRouters).toResolvedValue((getAgentAccount) => accountRoutes({ getAgentAccount }), [TOKENS.GetAgentAccount]);
    bind(TOKENS.BookingRouters).toResolvedValue(
      (listOwnKeys: ListOwnKeys, rollOwnKey: RollOwnKey, reportOwnKeyLeaked: ReportOwnKeyLeaked, idempotent: Idempotent) =>
        keyRoutes({ listOwnKeys, rollOwnKey, reportOwnKeyLeaked, idempotent: idempotent(agentScopeOf) }),
      [TOKENS.ListOwnKeys, TOKENS.RollOwnKey, TOKENS.ReportOwnKeyLeaked, TOKENS.Idempotent],
    );
  });

const cacheOptions = (config: Config) => ({ maxEntries: config.keyCache.maxEntries, ttlMs: config.keyCache.ttlMs });

function cached(inner: AgentResolver, health: { trusted: boolean }, config: Config, signal: ChangeSignal): CachedAgentResolver {
  const resolver = new CachedAgentResolver(inner, health, cacheOptions(config));
  signal.subscribe(() => resolver.clear());
  return resolver;
}
