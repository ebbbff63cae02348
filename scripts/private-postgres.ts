import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, chmodSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';

const run = promisify(execFile);

/** Where PostgreSQL's server programs are on this kind of machine. */
const BIN_DIRS = ['/usr/lib/postgresql/16/bin', '/usr/lib/postgresql/15/bin', '/usr/lib/postgresql/17/bin'];

const binDir = (): string | null => BIN_DIRS.find((d) => existsSync(path.join(d, 'initdb'))) ?? null;

/**
 * A throwaway PostgreSQL cluster of our own (data folder under the system's temp folder, its own
 * port), so fault scenarios can stop and restart a server without touching the machine's one.
 */
export interface PrivatePostgres {
  readonly port: number;
  readonly dataDir: string;
  /** postgres://postgres@127.0.0.1:<port>/<database> */
  url(database: string): string;
  createDatabase(name: string): Promise<void>;
  start(): Promise<void>;
  /** Stops the server (`fast`: rolls back open transactions and disconnects every client). */
  stop(mode?: 'fast' | 'immediate'): Promise<void>;
  restart(mode?: 'fast' | 'immediate'): Promise<void>;
  /** Stops the server and deletes its data folder. */
  destroy(): Promise<void>;
}

/** Is a private cluster possible here (server programs installed)? */
export const privatePostgresAvailable = (): boolean => binDir() !== null;

/** initdb + start on `port`. Runs the server as the `postgres` user when we are root. */
export async function startPrivatePostgres(port: number): Promise<PrivatePostgres> {
  const bin = binDir();
  if (bin === null) throw new Error('PostgreSQL server programs (initdb, pg_ctl) are not installed');
  const dataDir = mkdtempSync(path.join(tmpdir(), 'pbw-pg-'));
  const asRoot = process.getuid?.() === 0;
  chmodSync(dataDir, 0o777);
  const pgData = path.join(dataDir, 'data');
  const as = async (cmd: string, args: string[]): Promise<void> => {
    if (asRoot) await run('runuser', ['-u', 'postgres', '--', path.join(bin, cmd), ...args], { timeout: 60_000 });
    else await run(path.join(bin, cmd), args, { timeout: 60_000 });
  };
  await as('initdb', ['-D', pgData, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--no-sync', '--no-instructions']);
  const options = `-p ${port} -k ${dataDir} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=60 -c shared_buffers=32MB`;
  const logFile = path.join(dataDir, 'server.log');
  const ctl = (action: 'start' | 'stop' | 'restart', mode?: string) =>
    as('pg_ctl', [
      action,
      '-D',
      pgData,
      '-w',
      '-t',
      '30',
      ...(action === 'stop' ? [] : ['-o', options, '-l', logFile]),
      ...(mode ? ['-m', mode] : []),
    ]);
  const url = (database: string) => `postgres://postgres@127.0.0.1:${port}/${database}`;
  let running = false;
  const self: PrivatePostgres = {
    port,
    dataDir,
    url,
    createDatabase: async (name) => {
      const client = new pg.Client({ connectionString: url('postgres') });
      await client.connect();
      try {
        await client.query(`CREATE DATABASE "${name.replace(/"/g, '')}"`);
      } finally {
        await client.end();
      }
    },
    start: async () => {
      await ctl('start');
      running = true;
    },
    stop: async (mode = 'fast') => {
      await ctl('stop', mode);
      running = false;
    },
    restart: async (mode = 'fast') => {
      await ctl('restart', mode);
      running = true;
    },
    destroy: async () => {
      if (running) await ctl('stop', 'immediate').catch(() => undefined);
      running = false;
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
  try {
    await self.start();
  } catch (err) {
    rmSync(dataDir, { recursive: true, force: true });
    throw err;
  }
  return self;
}

/** A TCP port nobody listens on now, in a range away from the usual ones. */
export async function freePort(): Promise<number> {
  const net = await import('node:net');
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}
