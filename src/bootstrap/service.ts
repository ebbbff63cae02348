import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Express } from 'express';
import type { Container } from 'inversify';
import type { Logger } from 'pino';
import { migrate, openDatabase, type Database } from '../adapters/knex/database.js';
import type { Config } from './config.js';
import { buildApp, buildContainer } from './container.js';
import { TOKENS } from './tokens.js';

/** A composed service: container, app and the database it owns. */
export interface Service {
  readonly container: Container;
  readonly app: Express;
  readonly db: Database | null;
  /** Stops change feeds and timers, then closes the database (when the service opened it). */
  close(): Promise<void>;
}

/**
 * Opens the database (unless one is given), applies pending migrations, composes the container
 * and starts its long-lived parts.
 */
export async function openService(config: Config, log: Logger, options: { db?: Database } = {}): Promise<Service> {
  const ownsDb = options.db === undefined;
  const db = options.db ?? (config.persistence.kind === 'database' ? await openDatabase(config.persistence.target) : null);
  try {
    if (db !== null && ownsDb) await migrate(db);
    const container = buildContainer(config, db, log);
    const app = buildApp(container);
    // Behind a load balancer the client address (login throttling, logs) comes from X-Forwarded-For.
    if (config.trustProxyHops > 0) app.set('trust proxy', config.trustProxyHops);
    const lifecycle = container.get(TOKENS.Lifecycle);
    await lifecycle.start();
    return {
      container,
      app,
      db,
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

/** A service listening on a port. */
export interface RunningServer {
  readonly service: Service;
  readonly server: http.Server;
  readonly url: string;
  /** Graceful stop: readiness fails, new connections are refused, in-flight requests finish. */
  stop(): Promise<void>;
}

/** Listens with timeouts that bound slow or idle clients. */
export async function listen(service: Service, config: Config, log: Logger): Promise<RunningServer> {
  const server = http.createServer({ headersTimeout: 10_000, requestTimeout: 30_000, keepAliveTimeout: 5_000 }, service.app);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.port, config.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  const host = config.host === '0.0.0.0' || config.host === '::' ? '127.0.0.1' : config.host;
  const lifecycle = service.container.get(TOKENS.Lifecycle);
  let stopping: Promise<void> | null = null;
  const stop = (): Promise<void> => {
    stopping ??= (async () => {
      lifecycle.beginShutdown();
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      const deadline = new Promise<void>((resolve) => {
        const timer = setTimeout(() => {
          log.warn('shutdown timeout: closing remaining connections');
          server.closeAllConnections();
          resolve();
        }, config.shutdownTimeoutSeconds * 1000);
        timer.unref();
      });
      await Promise.race([closed, deadline]);
      await service.close();
    })();
    return stopping;
  };
  return { service, server, url: `http://${host}:${port}`, stop };
}
