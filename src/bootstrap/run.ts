import cluster from 'node:cluster';
import type { ContainerModule } from 'inversify';
import { migrate, openDatabase } from '../adapters/knex/database.js';
import { claimFolder, type FolderOwnership } from '../adapters/knex/pglite-owner.js';
import { DEMO_RESET_HINT, demoText, runAdmin } from '../adapters/cli/admin.js';
import { DEMO_CHANNEL, type DemoCredentials } from '../application/admin/seed-demo.js';
import { ADMIN_COMMANDS, adminUseCases } from './admin-commands.js';
import { loadConfig, type Config } from './config.js';
import { createLogger } from './logger.js';
import { listen, listenUrl, openService } from './service.js';
import type { Logger } from 'pino';

/** What an entry point adds to the standard composition (a test or chaos server's extra routes). */
export interface RunOptions {
  readonly extraModules?: readonly ContainerModule[];
  /** Runs once the service has stopped, before the process exits (flushes the last spans). */
  readonly beforeExit?: () => Promise<void>;
}

/**
 * Runs the service until SIGTERM or SIGINT, then shuts down gracefully and exits 0 (1 if the
 * shutdown failed or overran `SHUTDOWN_TIMEOUT_SECONDS`). With `CLUSTER_WORKERS=N` (N > 1) the
 * primary applies migrations once, then forks N workers that share the port.
 */
export async function runServer(options: RunOptions = {}): Promise<void> {
  const config = loadConfig();
  const log = createLogger(config.logLevel);
  if (config.clusterWorkers > 1 && cluster.isPrimary) {
    await runPrimary(config, log);
    return;
  }
  await runWorker(config, log, options);
}

async function runWorker(config: Config, log: Logger, options: RunOptions): Promise<void> {
  const inCluster = cluster.isWorker;
  // Listen for the stop request from the start: one that arrives while the service is still
  // starting is honoured as soon as it listens.
  let stopRequested: string | null = null;
  let shutdown: ((signal: string) => void) | null = null;
  const requestStop = (signal: string): void => {
    if (shutdown !== null) shutdown(signal);
    else if (stopRequested === null) {
      stopRequested = signal;
      hardExitAfter(config, log);
    }
  };
  process.once('SIGTERM', () => requestStop('SIGTERM'));
  process.once('SIGINT', () => requestStop('SIGINT'));
  // A worker's primary asks it to stop by message (signals do not reach it on every OS).
  process.on('message', (msg) => {
    if (msg === 'shutdown') requestStop('cluster');
  });
  // The embedded database belongs to one process: this one, or it refuses to start.
  const owner = await claimEmbeddedFolder(config);
  let service;
  try {
    service = await openService(config, log, {
      skipMigrations: inCluster,
      ...(options.extraModules ? { extraModules: options.extraModules } : {}),
    });
  } catch (err) {
    await owner?.release();
    throw err;
  }
  const embedded = config.persistence.kind === 'memory' || config.persistence.target.kind === 'pglite';
  const seedDemo = !inCluster && (process.env.SEED_DEMO === 'on' || (process.env.SEED_DEMO !== 'off' && embedded));
  let demo: DemoCredentials | 'present' | null = null;
  if (seedDemo) {
    demo =
      (await service.ports.agentDirectory.findChannel(DEMO_CHANNEL.code)) === null
        ? await service.core.admin.seedDemo.execute()
        : 'present';
  }
  const running = await listen(service, config, log);
  const opened = service;
  // Admin commands run while the service runs are run by the service itself, on its own
  // database: their effect is visible at once and nothing else opens the folder.
  await owner?.serveAdmin((argv) => runAdmin(argv, ADMIN_COMMANDS, async () => adminUseCases(opened)));
  log.info({ url: running.url, persistence: embedded ? 'embedded' : 'postgres', pid: process.pid }, 'listening');
  if (!inCluster) {
    const wildcard = config.host === '0.0.0.0' || config.host === '::';
    process.stdout.write(`Listening on ${running.url}${wildcard ? ' (every interface)' : ''}\nAPI reference: ${running.url}/docs\n`);
    if (demo === 'present') {
      process.stdout.write(
        'Demo data present. Its credentials were printed when first issued and only their hashes are stored, so they\n' +
          `cannot be shown again. To issue new ones (this works while the service runs): ${DEMO_RESET_HINT}\n`,
      );
    } else if (demo !== null) {
      // Shown once, on the terminal only: the plaintext secrets are stored nowhere.
      process.stdout.write(`\nDemo data seeded. ${demoText({ ...demo })}\n\n`);
    }
  }
  let exiting = false;
  shutdown = (signal: string): void => {
    if (exiting) return;
    exiting = true;
    log.info({ signal }, 'shutting down');
    if (stopRequested === null) hardExitAfter(config, log);
    (owner?.stopAdmin() ?? Promise.resolve())
      .then(() => running.stop())
      .then(() => owner?.release())
      .then(() => options.beforeExit?.())
      .then(() => {
        log.info('stopped');
        log.flush();
        process.exit(0);
      })
      .catch((err: unknown) => {
        log.error({ err }, 'shutdown failed');
        log.flush();
        process.exit(1);
      });
  };
  if (stopRequested !== null) shutdown(stopRequested);
}

/** Holds the embedded database folder for this process (null when the store is not an embedded folder). */
async function claimEmbeddedFolder(config: Config): Promise<FolderOwnership | null> {
  if (config.persistence.kind !== 'database' || config.persistence.target.kind !== 'pglite') return null;
  const { dataDir } = config.persistence.target;
  return dataDir === null ? null : claimFolder(dataDir, 'server');
}

/** Should the graceful path hang past its bound, leave anyway with a failure code. */
function hardExitAfter(config: Config, log: Logger): void {
  setTimeout(() => {
    log.error('shutdown overran SHUTDOWN_TIMEOUT_SECONDS');
    log.flush();
    process.exit(1);
  }, config.shutdownTimeoutSeconds * 1000).unref();
}

/**
 * The cluster's primary: migrations once, then N workers on one port (the primary accepts and
 * hands connections round-robin). A worker that dies is replaced; on SIGTERM every worker shuts
 * down gracefully and the primary exits 0 once all have exited cleanly.
 */
async function runPrimary(config: Config, log: Logger): Promise<void> {
  if (config.persistence.kind !== 'database' || config.persistence.target.kind !== 'postgres') {
    throw new Error('CLUSTER_WORKERS > 1 needs PostgreSQL (DATABASE_URL): an embedded or in-memory store belongs to one process');
  }
  const db = await openDatabase(config.persistence.target);
  try {
    await migrate(db);
  } finally {
    await db.close();
  }
  let stopping = false;
  let failed = false;
  const fork = (): void => {
    cluster.fork();
  };
  // Workers that have not listened yet served nothing: on shutdown they are simply terminated.
  const serving = new Set<number>();
  cluster.on('exit', (worker, code, signal) => {
    const served = serving.delete(worker.id);
    if (stopping) {
      if (served && code !== 0) failed = true;
      if (Object.keys(cluster.workers ?? {}).length === 0) {
        log.info({ failed }, 'all workers stopped');
        log.flush();
        process.exit(failed ? 1 : 0);
      }
      return;
    }
    log.warn({ pid: worker.process.pid, code, signal }, 'worker died; starting another');
    setTimeout(fork, 200);
  });
  let listening = 0;
  cluster.on('listening', (worker, address) => {
    serving.add(worker.id);
    listening += 1;
    if (listening === config.clusterWorkers) {
      process.stdout.write(
        `Listening on ${listenUrl({ address: address.address ?? config.host, port: address.port })} (${config.clusterWorkers} workers)\n`,
      );
    }
  });
  for (let i = 0; i < config.clusterWorkers; i += 1) fork();
  const shutdown = (signal: string): void => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, 'cluster shutting down');
    setTimeout(() => process.exit(1), config.shutdownTimeoutSeconds * 1000 + 2000).unref();
    for (const worker of Object.values(cluster.workers ?? {})) {
      if (worker === undefined) continue;
      if (serving.has(worker.id)) worker.send('shutdown');
      else worker.process.kill('SIGTERM');
    }
  };
  process.once('SIGTERM', () => shutdown('SIGTERM'));
  process.once('SIGINT', () => shutdown('SIGINT'));
}
