/**
 * `npm run lb-cluster`: N compiled instances of the service (node dist/bootstrap/main.js) sharing
 * PostgreSQL and Redis, behind HAProxy with deploy/haproxy/haproxy.cfg, all on 127.0.0.1. Runs
 * until Ctrl-C. HAProxy is installed from Debian's packages when it is missing.
 *
 *   LB_INSTANCES   how many instances (default 3)
 *   DATABASE_URL   the shared database (required)
 *   REDIS_URL      the shared Redis (default redis://127.0.0.1:6379); a key prefix of the run's own is used
 *   LB_PORT        HAProxy's port (default: a free one)
 *
 * Other variables (RATE_LIMIT_*, LOG_LEVEL, …) are passed to every instance. Also used by
 * `npm run chaos` for its load-balancer scenario.
 */
import { execFileSync, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { freePort } from './private-postgres.js';

/** One instance of the service behind the load balancer. */
export interface Instance {
  readonly name: string;
  readonly port: number;
  readonly url: string;
  child: ChildProcess;
  exited: Promise<number | null>;
  output(): string;
}

/** Counters of one HAProxy server or backend (from `show stat`). */
export interface LbStat {
  readonly name: string;
  readonly status: string;
  /** Requests sent again to a server (connection retries and L7 retries). */
  readonly retries: number;
  /** Requests moved to another server after a failure. */
  readonly redispatches: number;
  /** Responses that HAProxy had to make up because no server answered (5xx from the proxy). */
  readonly responseErrors: number;
}

export interface LbCluster {
  /** HAProxy's public URL. */
  readonly url: string;
  readonly instances: Instance[];
  /** Starts the instance again on its port (as an orchestrator replaces one that died). */
  restart(instance: Instance): Promise<void>;
  /** The backend's and each server's counters. */
  stats(): Promise<LbStat[]>;
  stop(): Promise<void>;
}

/** Installs HAProxy from Debian's packages when it is not on the PATH; returns its path. */
export function ensureHaproxy(): string {
  const found = spawnSync('sh', ['-c', 'command -v haproxy'], { encoding: 'utf8' }).stdout.trim();
  if (found !== '') return found;
  process.stderr.write('haproxy not found: apt-get install -y haproxy\n');
  execFileSync('apt-get', ['update', '-qq'], { stdio: 'inherit' });
  execFileSync('apt-get', ['install', '-y', '-qq', 'haproxy'], {
    stdio: 'inherit',
    env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
  });
  return spawnSync('sh', ['-c', 'command -v haproxy'], { encoding: 'utf8' }).stdout.trim();
}

/** Builds the compiled service when dist/ does not have it yet. */
export function ensureBuild(): void {
  if (!existsSync('dist/bootstrap/main.js')) execFileSync('npm', ['run', 'build', '--silent'], { stdio: 'inherit' });
}

async function startInstance(name: string, port: number, env: Record<string, string>): Promise<Instance> {
  const child = spawn(process.execPath, ['dist/bootstrap/main.js'], {
    env: { ...process.env, ...env, PORT: String(port), HOST: '127.0.0.1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout?.on('data', (c: Buffer) => (out += c.toString()));
  child.stderr?.on('data', (c: Buffer) => (out += c.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const started = Date.now();
  while (!/Listening on/.test(out)) {
    if (child.exitCode !== null || Date.now() - started > 60_000) throw new Error(`${name} did not start:\n${out}`);
    await sleep(50);
  }
  return { name, port, url: `http://127.0.0.1:${port}`, child, exited, output: () => out };
}

/** Sends one command to HAProxy's stats socket and returns its answer. */
function askHaproxy(socket: string, command: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const conn = net.connect(socket);
    let out = '';
    conn.on('data', (c: Buffer) => (out += c.toString()));
    conn.on('end', () => resolve(out));
    conn.on('error', reject);
    conn.write(`${command}\n`);
  });
}

/** Starts `count` instances and HAProxy in front of them. */
export async function startLbCluster(options: {
  count: number;
  databaseUrl: string;
  redisUrl: string;
  env?: Record<string, string>;
  lbPort?: number;
}): Promise<LbCluster> {
  const haproxy = ensureHaproxy();
  ensureBuild();
  const dir = mkdtempSync(path.join(os.tmpdir(), 'pbw-lb-'));
  const env: Record<string, string> = {
    LOG_LEVEL: 'warn',
    SEED_DEMO: 'off',
    DATABASE_URL: options.databaseUrl,
    REDIS_URL: options.redisUrl,
    REDIS_KEY_PREFIX: `pbw-lb:${process.pid}-${randomBytes(4).toString('hex')}:`,
    SERVICE_INSTANCES: String(options.count),
    // HAProxy is the one proxy in front: the client address is the last X-Forwarded-For entry.
    TRUST_PROXY: '1',
    // Readiness fails at SIGTERM; HAProxy needs 3 failed checks 500 ms apart to take the instance out.
    SHUTDOWN_DRAIN_DELAY_MS: '2000',
    SHUTDOWN_TIMEOUT_SECONDS: '10',
    ...options.env,
  };
  const instances: Instance[] = [];
  let proxy: ChildProcess | null = null;
  const stop = async (): Promise<void> => {
    for (const i of instances) if (i.child.exitCode === null && i.child.signalCode === null) i.child.kill('SIGTERM');
    if (proxy !== null && proxy.exitCode === null) proxy.kill('SIGTERM');
    await Promise.all(instances.map((i) => i.exited));
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    // The first instance applies the migrations; the others start once it listens.
    for (let n = 1; n <= options.count; n += 1) instances.push(await startInstance(`s${n}`, await freePort(), env));
    const lbPort = options.lbPort ?? (await freePort());
    const socket = path.join(dir, 'haproxy.sock');
    const servers = instances.map((i) => `    server ${i.name} 127.0.0.1:${i.port} check`).join('\n');
    const config = readFileSync('deploy/haproxy/haproxy.cfg', 'utf8')
      .replace('${STATS_SOCKET}', socket)
      .replace('${BIND}', `127.0.0.1:${lbPort}`)
      .replace('${SERVERS}', servers);
    const cfg = path.join(dir, 'haproxy.cfg');
    writeFileSync(cfg, config);
    execFileSync(haproxy, ['-c', '-q', '-f', cfg], { stdio: 'inherit' });
    let proxyOut = '';
    proxy = spawn(haproxy, ['-db', '-f', cfg], { stdio: ['ignore', 'pipe', 'pipe'] });
    proxy.stdout?.on('data', (c: Buffer) => (proxyOut += c.toString()));
    proxy.stderr?.on('data', (c: Buffer) => (proxyOut += c.toString()));
    const url = `http://127.0.0.1:${lbPort}`;
    const started = Date.now();
    for (;;) {
      const ok = await fetch(`${url}/readyz`).then(
        (r) => r.status === 200,
        () => false,
      );
      if (ok) break;
      if (proxy.exitCode !== null || Date.now() - started > 20_000) throw new Error(`haproxy did not start:\n${proxyOut}`);
      await sleep(100);
    }
    return {
      url,
      instances,
      restart: async (instance) => {
        const fresh = await startInstance(instance.name, instance.port, env);
        instance.child = fresh.child;
        instance.exited = fresh.exited;
      },
      stats: async () => {
        const csv = await askHaproxy(socket, 'show stat');
        const lines = csv.trim().split('\n');
        const header = (lines[0] ?? '').replace(/^# /, '').split(',');
        const col = (row: string[], name: string): string => row[header.indexOf(name)] ?? '';
        return lines
          .slice(1)
          .map((l) => l.split(','))
          .filter((row) => col(row, 'pxname') === 'service')
          .map((row) => ({
            name: col(row, 'svname'),
            status: col(row, 'status'),
            retries: Number(col(row, 'wretr') || 0),
            redispatches: Number(col(row, 'wredis') || 0),
            responseErrors: Number(col(row, 'eresp') || 0),
          }));
      },
      stop,
    };
  } catch (err) {
    await stop();
    throw err;
  }
}

async function main(): Promise<void> {
  const databaseUrl = process.env.DATABASE_URL;
  if (!databaseUrl) throw new Error('DATABASE_URL is required (the database every instance shares)');
  const cluster = await startLbCluster({
    count: Number(process.env.LB_INSTANCES ?? 3),
    databaseUrl,
    redisUrl: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379',
    ...(process.env.LB_PORT ? { lbPort: Number(process.env.LB_PORT) } : {}),
  });
  process.stdout.write(
    `HAProxy on ${cluster.url}; instances: ${cluster.instances.map((i) => i.url).join(' ')}\nCtrl-C stops everything.\n`,
  );
  const shutdown = (): void => {
    void cluster.stop().then(() => process.exit(0));
  };
  process.once('SIGINT', shutdown);
  process.once('SIGTERM', shutdown);
}

if (process.argv[1]?.endsWith('lb-cluster.ts')) {
  main().catch((err: unknown) => {
    process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exit(1);
  });
}
