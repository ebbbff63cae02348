import { ContainerModule } from 'inversify';
import type { Logger } from 'pino';
import type { Database } from '../../adapters/knex/database.js';
import type { Clock } from '../../domain/shared/clock.port.js';
import type { Config } from '../config.js';
import type { Lifecycle } from '../lifecycle.js';
import { createMemoryPorts, postgresPorts, type PortOptions, type Ports, type PortSet } from '../ports.js';
import { TOKENS } from '../tokens.js';

/**
 * The one persistence switch: every port, in memory (`db` null) or on the database, built as
 * one consistent set and started and stopped with the service; or a whole set given by an
 * embedding program (`given`). `overrides` replaces single ports of the set (test compositions
 * only, such as a ledger that writes past the domain's rules).
 */
export const persistenceModule = (
  config: Config,
  db: Database | null,
  clock?: Clock,
  overrides: Partial<Ports> = {},
  given?: PortSet,
): ContainerModule =>
  new ContainerModule(({ bind }) => {
    bind(TOKENS.Ports).toResolvedValue(
      (lifecycle: Lifecycle, log: Logger) => {
        const options: PortOptions = {
          ...(clock !== undefined ? { clock } : {}),
          tokens: {
            issuer: config.issuer,
            audience: config.tokenAudience,
            machineTokenTtlSeconds: config.machineTokenTtlSeconds,
            userTokenTtlSeconds: config.userTokenTtlSeconds,
            signingKey: config.tokenSigningKey,
          },
          cache: config.keyCache,
          keyUsageFlushMs: config.keyUsageFlushMs,
          webhooks: {
            allowInsecure: config.webhooks.allowInsecure,
            allowPrivate: config.webhooks.allowPrivate,
            dnsTimeoutMs: config.webhooks.dnsTimeoutMs,
            dnsServers: config.webhooks.dnsServers,
            secretKey: config.webhooks.secretKey,
            // Said by serving instances; the admin command (no worker) keeps stderr for its own output.
            warnGeneratedKey: config.webhooks.worker,
          },
          replay: { redis: config.replayRedis },
          log,
        };
        const set = given ?? (db === null ? createMemoryPorts(options) : postgresPorts(db.knex, db, options));
        lifecycle.onStart(() => set.start());
        lifecycle.onStop(() => set.stop());
        if (Object.keys(overrides).length === 0) return set;
        // One-statement writes belong to the ledger they were made with: a ledger given in its place goes without them.
        const ownLedger = overrides.ledger === undefined || overrides.oneStatementWrites !== undefined;
        return { ...set, ...(ownLedger ? {} : { oneStatementWrites: null }), ...overrides };
      },
      [TOKENS.Lifecycle, TOKENS.Logger],
    );
  });
