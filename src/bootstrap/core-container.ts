import 'reflect-metadata';
import { Container } from 'inversify';
import type { Logger } from 'pino';
import { migrate, openDatabase, type Database, type DatabaseEvents } from '../adapters/knex/database.js';
import type { Config } from './config.js';
import type { Core } from './core.js';
import { Lifecycle } from './lifecycle.js';
import type { Ports, PortSet } from './ports.js';
import { TOKENS } from './tokens.js';
import { persistenceModule } from './modules/persistence.module.js';
import { serviceModule, useCaseModules } from './modules/areas.module.js';
import type { Clock } from '../domain/shared/clock.port.js';

/** How a composition is opened: what `openService` and the admin command line both take. */
export interface CompositionOptions {
  readonly db?: Database;
  /** Skip migrations (a cluster's primary applied them before forking). */
  readonly skipMigrations?: boolean;
  /** The clock of every part of the service (tests that control time). */
  readonly clock?: Clock;
  /** A whole port set to serve instead of the one `config` chooses (an embedding program's own adapters). */
  readonly portSet?: PortSet;
  /** Single ports replacing those of the set (test compositions only). */
  readonly ports?: Partial<Ports>;
}

/** The core composed on its ports and the database it owns, started. */
export interface ComposedCore {
  readonly container: Container;
  /** The ports the core runs on (started with it). */
  readonly ports: PortSet;
  /** The use cases the HTTP app and the admin commands call. */
  readonly core: Core;
  readonly db: Database | null;
  /** Stops change feeds and timers, then closes the database (when the composition opened it). */
  close(): Promise<void>;
}

/**
 * The composition root's core: the persistence module binds every port from the one persistence
 * switch (`db === null` means in memory) and the area modules bind the use cases on those ports.
 * The HTTP service loads its own modules on top (`container.ts`); the admin command line runs on
 * this alone, so it loads no HTTP code.
 */
export function buildCoreContainer(config: Config, db: Database | null, log: Logger, options: CompositionOptions = {}): Container {
  const container = new Container({ defaultScope: 'Singleton' });
  container.bind(TOKENS.Config).toConstantValue(config);
  container.bind(TOKENS.Logger).toConstantValue(log);
  container.bind(TOKENS.Database).toConstantValue(db);
  container.bind(TOKENS.Lifecycle).toConstantValue(new Lifecycle());
  container.load(persistenceModule(config, db, options.clock, options.ports, options.portSet), serviceModule(config), ...useCaseModules);
  return container;
}

/**
 * Opens the database (unless one is given), applies pending migrations, composes the core, lets
 * `extend` add to the container (the HTTP service's modules), and starts the long-lived parts.
 */
export async function openCore<T = void>(
  config: Config,
  log: Logger,
  options: CompositionOptions = {},
  extend: (container: Container) => T = () => undefined as T,
): Promise<ComposedCore & { readonly extended: T }> {
  const ownsDb = options.db === undefined;
  const db =
    options.db ??
    (options.portSet === undefined && config.persistence.kind === 'database'
      ? await openDatabase(config.persistence.target, databaseEvents(log))
      : null);
  try {
    if (db !== null && ownsDb && options.skipMigrations !== true) await migrate(db);
    const container = buildCoreContainer(config, db, log, options);
    const extended = extend(container);
    // Resolved before the start, so that every part registers its start and stop.
    const core = container.get(TOKENS.Core);
    const ports = container.get(TOKENS.Ports);
    const lifecycle = container.get(TOKENS.Lifecycle);
    await lifecycle.start();
    return {
      container,
      ports,
      core,
      db,
      extended,
      close: async () => {
        await lifecycle.stop();
        if (ownsDb && db !== null) await db.close();
      },
    };
  } catch (err) {
    if (ownsDb && db !== null) await db.close().catch(() => undefined);
    throw err;
  }
}

/**
 * Pool events as log lines, one a second at most of each kind: a server restart drops every
 * connection at once and fails every waiting acquisition.
 */
export function databaseEvents(log: Logger): DatabaseEvents {
  const last = new Map<string, number>();
  const quiet = (kind: string): boolean => {
    const now = Date.now();
    if (now - (last.get(kind) ?? 0) < 1000) return true;
    last.set(kind, now);
    return false;
  };
  return {
    onConnectionError: (err) => {
      if (quiet('lost')) return;
      log.warn(
        { err: { message: err.message, code: (err as { code?: string }).code } },
        'pooled database connection lost; it will be replaced',
      );
    },
    log: (level, message) => {
      if (quiet(level)) return;
      log[level]({ knex: message }, 'database pool');
    },
  };
}
