import { expect } from 'chai';
import { readdirSync, readFileSync, readlinkSync, realpathSync } from 'node:fs';
import { databaseUrl } from '../support/database.js';
import { startTestApp, type TestApp } from '../support/app.js';
import { buildAgent, eventually } from '../support/builders.js';
import { spawnServer, type ServerProcess } from '../support/reliability.js';
import { freePort } from '../../scripts/private-postgres.js';
import { testRedisUrl, uniqueRedisPrefix } from '../support/redis.js';

const NODE_BINARY = realpathSync(process.execPath);

/**
 * Pids of the live node processes whose parent is `pid` (Linux /proc); tsx's esbuild helper is not
 * one. A process is told by its executable, not its name: Node.js 24 names a worker's main thread
 * `MainThread`, which is what /proc shows as the name of a process.
 */
function childrenOf(pid: number): number[] {
  const out: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      // Fields after the command name, which is in parentheses and may hold spaces.
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (Number(fields[1]) === pid && fields[0] !== 'Z' && readlinkSync(`/proc/${entry}/exe`) === NODE_BINARY) out.push(Number(entry));
    } catch {
      // The process ended while we looked.
    }
  }
  return out;
}

describe('cluster mode (CLUSTER_WORKERS)', () => {
  let url: string;
  let app: TestApp;
  let redis: string | null = null;
  let server: ServerProcess | null = null;
  before(async function () {
    const u = await databaseUrl();
    // Workers are separate processes: they need a database server, not in-process PGlite.
    if (u === null || process.platform !== 'linux') this.skip();
    url = u;
    redis = await testRedisUrl();
    app = await startTestApp();
  });
  after(async () => {
    if (server !== null && server.child.exitCode === null) server.child.kill('SIGKILL');
    await app?.stop();
  });

  it('when started with 2 workers, then both serve one port, a dead worker is replaced, and SIGTERM stops all with exit 0', async function () {
    this.timeout(90_000);
    // The workers count rate limits together in Redis.
    if (redis === null) this.skip();
    const agent = await buildAgent(app.service);
    const env = {
      DATABASE_URL: url,
      CLUSTER_WORKERS: '2',
      SHUTDOWN_TIMEOUT_SECONDS: '10',
      RATE_LIMITS: 'on',
      REDIS_URL: redis as string,
      REDIS_KEY_PREFIX: uniqueRedisPrefix(),
    };
    server = await spawnServer('src/bootstrap/main.ts', env, await freePort());
    const primary = server.child.pid as number;
    const workers = childrenOf(primary);
    expect(workers).to.have.length(2);
    for (let i = 0; i < 10; i += 1) {
      const res = await fetch(`${server.url}/api/v1/agent/account`, { headers: { 'X-API-KEY': agent.apiKey, connection: 'close' } });
      expect(res.status).to.equal(200);
    }
    process.kill(workers[0] as number, 'SIGKILL');
    await eventually(
      async () => {
        const now = childrenOf(primary);
        return now.length === 2 && !now.includes(workers[0] as number);
      },
      30_000,
      'a replacement worker',
    );
    await eventually(
      async () => (await fetch(`${server!.url}/readyz`, { headers: { connection: 'close' } }).catch(() => null))?.status === 200,
      30_000,
      'served',
    );
    server.child.kill('SIGTERM');
    const exit = await server.exited();
    expect(exit.code, server.output()).to.equal(0);
    expect(childrenOf(primary)).to.deep.equal([]);
  });

  it('when CLUSTER_WORKERS > 1 without PostgreSQL, then the service refuses to start', async function () {
    this.timeout(30_000);
    const err = await spawnServer(
      'src/bootstrap/main.ts',
      { CLUSTER_WORKERS: '2', PERSISTENCE: 'memory', DATABASE_URL: undefined, RATE_LIMITS: 'off' },
      await freePort(),
    ).then(
      () => null,
      (e: Error) => e.message,
    );
    expect(err).to.match(/needs PostgreSQL/);
  });

  it('when CLUSTER_WORKERS > 1 with rate limits on and no shared store, then the service refuses to start and says what to set', async function () {
    this.timeout(30_000);
    const env = { DATABASE_URL: url, CLUSTER_WORKERS: '2', RATE_LIMITS: 'on', REDIS_URL: undefined, RATE_LIMIT_STORE: undefined };
    const err = await spawnServer('src/bootstrap/main.ts', env, await freePort()).then(
      () => null,
      (e: Error) => e.message,
    );
    expect(err).to.match(/rate limits are counted in process memory.*Set REDIS_URL/);
  });
});
