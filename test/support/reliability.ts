import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { spawn, type ChildProcess } from 'node:child_process';
import pg from 'pg';
import { openService } from '../../src/bootstrap/service.js';
import { silentLog, testConfig, type TestApp } from './app.js';
import { writeClientError } from '../../src/adapters/http/client-error.js';

/**
 * A service that opens its own pool on `url` (instead of sharing the test run's), so a test can
 * starve, cut or restart that pool's database without disturbing the other tests.
 */
export async function startAppOnOwnPool(url: string, env: Record<string, string> = {}): Promise<TestApp> {
  const config = testConfig({ PERSISTENCE: 'postgres', DATABASE_URL: url, ...env });
  const service = await openService(config, silentLog);
  const server = http.createServer(service.app);
  server.on('clientError', writeClientError);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: base,
    service,
    request: (path, init) => fetch(`${base}${path}`, init),
    stop: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await service.close();
    },
  };
}

/** Runs one statement on a short-lived connection of its own. */
export async function adminQuery<T extends pg.QueryResultRow = Record<string, unknown>>(
  url: string,
  sql: string,
  params: unknown[] = [],
): Promise<T[]> {
  const client = new pg.Client({ connectionString: url, application_name: 'pbw-test-admin' });
  await client.connect();
  try {
    return (await client.query<T>(sql, params)).rows;
  } finally {
    await client.end();
  }
}

/**
 * Terminates the service's connections to this database only (pool and change feed), as a
 * failover or an operator's `pg_terminate_backend` would. Returns how many were cut.
 */
export async function terminateServiceConnections(url: string): Promise<number> {
  const rows = await adminQuery<{ n: number }>(
    url,
    `SELECT count(pg_terminate_backend(pid))::int AS n FROM pg_stat_activity
      WHERE datname = current_database() AND pid <> pg_backend_pid()
        AND application_name LIKE 'partner-booking-wallet%'`,
  );
  return rows[0]?.n ?? 0;
}

/** The service as a separate process, started the way `npm start` starts it. */
export interface ServerProcess {
  readonly child: ChildProcess;
  readonly url: string;
  readonly output: () => string;
  /** Resolves with the exit code (or signal name) and how long after `since` it came. */
  exited(): Promise<{ code: number | null; signal: NodeJS.Signals | null; at: number }>;
}

/**
 * Spawns `tsx <entry>` (`node <entry>` for compiled JavaScript) with `env` (an undefined value unsets) and waits until it prints its URL
 * (at most `startTimeoutMs`: an embedded database's first start creates the whole cluster).
 */
export async function spawnServer(
  entry: string,
  env: Record<string, string | undefined>,
  port: number,
  startTimeoutMs = 60_000,
): Promise<ServerProcess> {
  const merged: NodeJS.ProcessEnv = { ...process.env, LOG_LEVEL: 'warn', SEED_DEMO: 'off', ...env, PORT: String(port), HOST: '127.0.0.1' };
  // An undefined value removes the variable (e.g. DATABASE_URL for an embedded run).
  for (const [k, v] of Object.entries(env)) if (v === undefined) delete merged[k];
  const child = spawn(process.execPath, entry.endsWith('.js') ? [entry] : ['--import', 'tsx', entry], {
    env: merged,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout?.on('data', (c: Buffer) => (out += c.toString()));
  child.stderr?.on('data', (c: Buffer) => (out += c.toString()));
  const exit = new Promise<{ code: number | null; signal: NodeJS.Signals | null; at: number }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal, at: Date.now() })),
  );
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not start:\n${out}`)), startTimeoutMs);
    const check = (): void => {
      if (/Listening on/.test(out)) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout?.on('data', check);
    void exit.then(() => {
      clearTimeout(timer);
      reject(new Error(`server exited before listening:\n${out}`));
    });
  });
  return { child, url: `http://127.0.0.1:${port}`, output: () => out, exited: () => exit };
}
