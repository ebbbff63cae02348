import type { AddressInfo } from 'node:net';
import http from 'node:http';
import { Writable } from 'node:stream';
import pino from 'pino';
import { createLogger } from '../../src/bootstrap/logger.js';
import { loadConfig, type Config } from '../../src/bootstrap/config.js';
import { openService, type Service } from '../../src/bootstrap/service.js';
import { testDatabase } from './database.js';
import type { Clock } from '../../src/domain/shared/clock.port.js';

/** A service on the test database (or in memory), listening on an ephemeral port. */
export interface TestApp {
  readonly url: string;
  readonly service: Service;
  /** fetch against the app, with a path relative to its root. */
  request(path: string, init?: RequestInit): Promise<Response>;
  stop(): Promise<void>;
}

export const silentLog = pino({ level: 'silent' });

/** The service's logger at trace level, every line it writes kept in `lines` (to look for secrets). */
export function capturedLog(): { log: pino.Logger; lines: string[] } {
  const lines: string[] = [];
  const sink = new Writable({
    write(chunk, _enc, done) {
      lines.push(String(chunk));
      done();
    },
  });
  return { log: createLogger('trace', sink), lines };
}

/** Test configuration: the defaults, rate limits off unless a test turns them on. */
export function testConfig(overrides: Record<string, string> = {}): Config {
  return loadConfig({ RATE_LIMITS: 'off', LOG_LEVEL: 'silent', PERSISTENCE: 'pglite', ...overrides });
}

/**
 * Starts the real Express app on the shared test database. `memory: true` composes the
 * in-memory adapters instead.
 */
export async function startTestApp(
  options: { env?: Record<string, string>; memory?: boolean; log?: pino.Logger; clock?: Clock } = {},
): Promise<TestApp> {
  const log = options.log ?? silentLog;
  const config = testConfig({ ...(options.memory ? { PERSISTENCE: 'memory' } : {}), ...options.env });
  // A test that controls time gives every part of the service its clock.
  const clock = options.clock === undefined ? {} : { clock: options.clock };
  const service = options.memory
    ? await openService(config, log, clock)
    : await openService(config, log, { db: await testDatabase(), ...clock });
  const server = http.createServer(service.app);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    service,
    request: (path, init) => fetch(`${url}${path}`, init),
    stop: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await service.close();
    },
  };
}

/** A JSON request init with optional headers. */
export const json = (method: string, body: unknown, headers: Record<string, string> = {}): RequestInit => ({
  method,
  headers: { 'content-type': 'application/json', ...headers },
  body: JSON.stringify(body),
});

/**
 * Registers `before`/`after` hooks that start two instances of the service on the test database,
 * each with its own caches and change feed (and the given clock, if any), and returns them (set
 * once `before` has run).
 */
export function twoInstances(options: { clock?: Clock } = {}): { a: TestApp; b: TestApp } {
  const apps = {} as { a: TestApp; b: TestApp };
  before(async () => {
    apps.a = await startTestApp(options);
    apps.b = await startTestApp(options);
  });
  after(async () => {
    await apps.a?.stop();
    await apps.b?.stop();
  });
  return apps;
}
