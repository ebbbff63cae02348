const HELP = `npm run bench [-- --help]

Measures the service as it runs in production: the compiled build (npm run build, then
node dist/bootstrap/main.js), rate limits on (every limit raised so that none trips),
LOG_LEVEL=info, PostgreSQL. A bare Express route and node-oidc-provider run beside it, each in its
own process; autocannon drives each hot path from this process and prints requests/s, p50, p99,
errors, the ratio to bare Express and server and PostgreSQL CPU per request. The account read is
also measured on a second service with RATE_LIMITS=off, for the cost of the limits in the same
run. The table is appended to bench/results.md with the machine's description and load.

The database: a new one named pbw_bench_<time>_<pid> on the local server, dropped at the end;
or BENCH_DATABASE_URL, used as it is and never dropped. Its name is printed.

Options (environment):`;

/**
 * `npm run bench`: see HELP. Options:
 *
 *   BENCH_SECONDS            seconds per scenario (default 10), after BENCH_WARMUP s (default 1)
 *   BENCH_CONNECTIONS        connections for reads (default 50); BENCH_WRITE_CONNECTIONS for writes (20);
 *                            BENCH_VOUCHER_CONNECTIONS for voucher pages (4)
 *   BENCH_ONLY               comma-separated scenario names (or unique fragments of them)
 *   BENCH_CLUSTER_WORKERS    run the service with CLUSTER_WORKERS=N
 *   BENCH_OIDC               on (default) | off: the oidc-provider comparison for token issuance
 *   BENCH_LOG_LEVEL          the service's LOG_LEVEL (default info: one access-log line a request, to a file)
 *   BENCH_DB_POOL_MAX        the service's DB_POOL_MAX (default: the service's own default)
 *   BENCH_PROFILE            a directory: the service runs with --cpu-prof and writes its profiles there
 *   BENCH_DATABASE_URL       a database to use as it is (never dropped); default: a new database
 *                            pbw_bench_<time>_<pid> on BENCH_ADMIN_URL's server, dropped at the end
 *   BENCH_ADMIN_URL          where to create that database (default postgres://postgres@127.0.0.1:5432/postgres)
 *   BENCH_RATE_LIMITS        on (default; every limit raised so none trips) | off
 *   BENCH_REDIS_URL          count the limits in this Redis (a key prefix of the run's own); default in memory
 *   BENCH_LIMITS_COMPARISON  on (default) | off: the account read again on a service with RATE_LIMITS=off
 *   BENCH_LIMITS_REDIS       a Redis URL (default redis://127.0.0.1:6379 when it answers) | off: the account
 *                            read again on a service counting its limits in that Redis (a key prefix of
 *                            the run's own), beside limits off and the limits counted in process memory
 *   BENCH_PGBENCH            on (default) | off: with the payments row, pgbench's builtin TPC-B-like script
 *                            at the same connections and seconds in a scratch database (dropped after);
 *                            skipped when pgbench is not installed. BENCH_PGBENCH_SCALE: its scale
 *                            (default the connections)
 *   BENCH_TRACING            on (default) | off: the account read again on a service with OpenTelemetry
 *                            tracing on, exporting over OTLP/HTTP to a collector in this process that
 *                            accepts every export and drops it (the cost of tracing, not of a collector)
 *   BENCH_METRICS            on (default) | off: the service exposes Prometheus metrics on a loopback port
 *   BENCH_ROUNDS             rounds of the account read's comparison (default 2): the account read, the
 *                            same read with limits off and with metrics off, and bare Express, measured
 *                            in turns, the order rotated each round; each row sums its rounds
 *   BENCH_BUILD              on (default) | off: run npm run build first (off: use dist/ as it is)
 *   BENCH_DATABASE_SOCKET    a directory: the service reaches that fresh database over PostgreSQL's
 *                            Unix socket there (e.g. /var/run/postgresql) instead of TCP
 *   BENCH_NODE_ARGS          extra node options for the service process (space-separated)
 *   BENCH_RESULTS            where to append the table (default bench/results.md; "-" for nowhere)
 *   BENCH_TITLE              the heading of the appended section (default: the time of the run)
 */
import autocannon from 'autocannon';
import { spawn, type ChildProcess } from 'node:child_process';
import { execFileSync } from 'node:child_process';
import { appendFileSync, closeSync, existsSync, openSync, readdirSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import net from 'node:net';
import http from 'node:http';
import { lapseRecording, SCENARIOS, type BenchContext } from './scenarios.js';
import { pgbenchAvailable, pgbenchTpcb } from './pgbench.js';

const seconds = Number(process.env.BENCH_SECONDS ?? 10);
const warmup = Number(process.env.BENCH_WARMUP ?? 1);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 50);
const only = process.env.BENCH_ONLY?.split(',')
  .map((s) => s.trim())
  .filter(Boolean);
const oidc = process.env.BENCH_OIDC !== 'off';
const tracing = process.env.BENCH_TRACING !== 'off';
const workers = process.env.BENCH_CLUSTER_WORKERS;
const profileDir = process.env.BENCH_PROFILE;
const resultsFile = process.env.BENCH_RESULTS ?? 'bench/results.md';
const rateLimits = process.env.BENCH_RATE_LIMITS ?? 'on';
/** Whether a scenario of this name runs (BENCH_ONLY). */
const selected = (name: string): boolean => !only || only.some((o) => name === o || name.includes(o));
// The account read's comparisons (limits off, in Redis, metrics off, tracing on) run beside it, only when it runs.
const limitsComparison = process.env.BENCH_LIMITS_COMPARISON !== 'off' && rateLimits === 'on' && selected('GET /api/v1/agent/account');
const metrics = process.env.BENCH_METRICS !== 'off';
const rounds = Math.max(1, Number(process.env.BENCH_ROUNDS ?? 2));
const adminUrl = process.env.BENCH_ADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const pgbench = process.env.BENCH_PGBENCH !== 'off';

/** Does anything answer at this Redis URL's host and port (within a second)? */
function answers(redisUrl: string): Promise<boolean> {
  const { hostname, port } = new URL(redisUrl);
  return new Promise((resolve) => {
    const socket = net.connect({ host: hostname, port: Number(port || 6379) });
    socket.setTimeout(1000);
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
    socket.once('timeout', () => {
      socket.destroy();
      resolve(false);
    });
  });
}

/** Every limit raised so that none trips: the bench measures what counting costs, not refusals. */
const RAISED_LIMITS: Record<string, string> = Object.fromEntries(
  ['PUBLIC', 'BOOKING', 'LOGIN', 'TOKEN', 'DELEGATED', 'PAYMENTS', 'AUTH_FAILURES'].map((n) => [`RATE_LIMIT_${n}`, '999999999/60']),
);

/** The database this run created (and so may drop), or null when it was given one. */
let created: string | null = null;

async function freshDatabase(): Promise<string> {
  if (process.env.BENCH_DATABASE_URL) return process.env.BENCH_DATABASE_URL;
  const name = `pbw_bench_${Date.now()}_${process.pid}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  // Time spent inside PL/pgSQL functions (the ledger's), for the per-request database work.
  await admin.query(`ALTER DATABASE ${name} SET track_functions = 'pl'`);
  await admin.end();
  created = name;
  const socket = process.env.BENCH_DATABASE_SOCKET;
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  if (socket) {
    url.hostname = 'localhost';
    url.port = '';
    url.searchParams.set('host', socket);
  }
  return url.toString();
}

/** Drops the database this run created, and nothing else. */
async function dropCreatedDatabase(): Promise<void> {
  if (created === null) return;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    await admin.query(`DROP DATABASE IF EXISTS ${created} WITH (FORCE)`);
  } finally {
    await admin.end();
  }
}

/**
 * Starts a server process whose stdout and stderr go to a file (so this process spends nothing reading
 * its logs) and waits for the line that gives its port.
 */
function start(
  name: string,
  args: string[],
  env: Record<string, string>,
  ready: RegExp,
  nodeArgs: string[] = [],
): Promise<{ child: ChildProcess; port: number }> {
  const logFile = path.join(os.tmpdir(), `pbw-bench-${name}-${process.pid}.log`);
  const fd = openSync(logFile, 'w');
  // TypeScript sources run through tsx; the compiled service runs on node alone.
  const loader = args[0]?.endsWith('.ts') ? ['--import', 'tsx'] : [];
  const child = spawn(process.execPath, [...nodeArgs, ...loader, ...args], { env: { ...process.env, ...env }, stdio: ['ignore', fd, fd] });
  closeSync(fd);
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const poll = setInterval(() => {
      const out = readFileSync(logFile, 'utf8');
      const m = ready.exec(out);
      if (m) {
        clearInterval(poll);
        resolve({ child, port: Number(m[1]) });
      } else if (Date.now() - started > 60_000) {
        clearInterval(poll);
        reject(new Error(`${name} not ready:\n${out}`));
      }
    }, 100);
    child.once('exit', (code) => {
      clearInterval(poll);
      reject(new Error(`${name} exited ${code}:\n${readFileSync(logFile, 'utf8').slice(-2000)}`));
    });
  });
}

/**
 * CPU time (user + system, ms) of a process and its direct children (cluster workers), and of the
 * PostgreSQL backends serving the bench database (their process title names it).
 */
function cpuMs(pid: number, database: string): { service: number; serviceSystem: number; db: number } {
  const tick = 10; // USER_HZ is 100 on Linux
  let service = 0;
  let serviceSystem = 0;
  let db = 0;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      const ms = (Number(fields[11]) + Number(fields[12])) * tick;
      if (Number(entry) === pid || Number(fields[1]) === pid) {
        service += ms;
        serviceSystem += Number(fields[12]) * tick;
      } else if (stat.includes('(postgres)') && readFileSync(`/proc/${entry}/cmdline`, 'utf8').includes(` ${database} `)) db += ms;
    } catch {
      // The process ended while we looked.
    }
  }
  return { service, serviceSystem, db };
}

interface Row {
  name: string;
  /** Requests answered in the measured seconds. */
  requests: number;
  /** Server CPU per request, µs. */
  cpuUs: number | null;
  /** The part of it spent in the kernel (system time: socket reads and writes, other calls), µs. */
  systemUs: number | null;
  /** PostgreSQL CPU per request, µs (backends of the bench database). */
  dbUs: number | null;
  connections: number;
  rps: number;
  p50: number;
  p99: number;
  errors: number;
  non2xx: number;
  /** What PostgreSQL did per request (writes only): see `databaseWork`. */
  dbWork: string | null;
}

/** Counters of the bench database: transactions, rows, WAL and time inside PL/pgSQL functions. */
interface DbCounters {
  commits: number;
  inserted: number;
  updated: number;
  blocksRead: number;
  blocksHit: number;
  walRecords: number;
  walBytes: number;
  walFpi: number;
  functionCalls: number;
  functionSelfMs: number;
}

let statsUrl: string | null = null;

async function dbCounters(): Promise<DbCounters | null> {
  if (statsUrl === null) return null;
  const client = new pg.Client({ connectionString: statsUrl });
  await client.connect();
  try {
    // Statistics are sent by backends at most every 500 ms (PostgreSQL 15): wait for them.
    await new Promise((r) => setTimeout(r, 700));
    await client.query('SELECT pg_stat_clear_snapshot()');
    const d = (
      await client.query(
        `SELECT xact_commit, tup_inserted, tup_updated, blks_read, blks_hit FROM pg_stat_database WHERE datname = current_database()`,
      )
    ).rows[0];
    const w = (await client.query(`SELECT wal_records, wal_bytes, wal_fpi FROM pg_stat_wal`)).rows[0];
    const f = (
      await client.query(`SELECT COALESCE(sum(calls), 0) AS calls, COALESCE(sum(self_time), 0) AS self FROM pg_stat_user_functions`)
    ).rows[0];
    return {
      commits: Number(d.xact_commit),
      inserted: Number(d.tup_inserted),
      updated: Number(d.tup_updated),
      blocksRead: Number(d.blks_read),
      blocksHit: Number(d.blks_hit),
      walRecords: Number(w.wal_records),
      walBytes: Number(w.wal_bytes),
      walFpi: Number(w.wal_fpi),
      functionCalls: Number(f.calls),
      functionSelfMs: Number(f.self),
    };
  } finally {
    await client.end();
  }
}

/**
 * Per request: commits, rows inserted and updated, buffer reads, WAL records and bytes (the whole
 * server's WAL: other databases' writes count too), and time inside PL/pgSQL functions.
 */
function databaseWork(before: DbCounters | null, after: DbCounters | null, requests: number): string | null {
  if (before === null || after === null || requests === 0) return null;
  const per = (k: keyof DbCounters, digits = 1): string => ((after[k] - before[k]) / requests).toFixed(digits);
  const fn = after.functionCalls - before.functionCalls;
  return (
    `${per('commits', 2)} commits, ${per('inserted')} rows inserted, ${per('updated')} updated, ${per('blocksHit', 0)} buffer hits, ` +
    `${per('walRecords')} WAL records / ${per('walBytes', 0)} B (${per('walFpi', 2)} full pages)` +
    (fn > 0
      ? `, ${(fn / requests).toFixed(2)} function calls taking ${(((after.functionSelfMs - before.functionSelfMs) * 1000) / fn).toFixed(0)} µs each`
      : '')
  );
}

/** One request as autocannon would send it first, to catch a scenario that measures only errors. */
async function probe(opts: autocannon.Options): Promise<void> {
  let req: { method?: string; headers?: Record<string, string>; body?: string | Buffer; path?: string } = {
    method: opts.method ?? 'GET',
    headers: opts.headers as Record<string, string>,
    ...(opts.body === undefined ? {} : { body: opts.body as string }),
  };
  const setup = (opts.requests?.[0] as { setupRequest?: (r: typeof req, c: object) => typeof req } | undefined)?.setupRequest;
  if (setup) req = setup(req, {});
  const res = await fetch(opts.url as string, {
    method: req.method!,
    headers: req.headers!,
    ...(req.body === undefined ? {} : { body: req.body }),
  });
  const text = await res.text();
  if (res.status >= 300) throw new Error(`probe answered ${res.status}: ${text.slice(0, 500)}`);
}

let database = 'pbw_bench';

/** Runs of one service merged: requests and CPU summed over them, the median p50, the worst p99. */
function merged(name: string, runs: readonly Row[]): Row {
  const requests = runs.reduce((n, r) => n + r.requests, 0);
  const weighted = (k: 'cpuUs' | 'systemUs' | 'dbUs'): number | null =>
    runs.some((r) => r[k] === null) || requests === 0 ? null : runs.reduce((n, r) => n + r[k]! * r.requests, 0) / requests;
  const p50s = runs.map((r) => r.p50).sort((a, b) => a - b);
  return {
    name,
    requests,
    cpuUs: weighted('cpuUs'),
    systemUs: weighted('systemUs'),
    dbUs: weighted('dbUs'),
    connections: runs[0]!.connections,
    rps: runs.reduce((n, r) => n + r.rps, 0) / runs.length,
    p50: p50s[Math.floor(p50s.length / 2)]!,
    p99: Math.max(...runs.map((r) => r.p99)),
    errors: runs.reduce((n, r) => n + r.errors, 0),
    non2xx: runs.reduce((n, r) => n + r.non2xx, 0),
    dbWork: null,
  };
}

async function load(name: string, conns: number, opts: autocannon.Options, servicePid: number | null): Promise<Row> {
  await probe(opts);
  if (warmup > 0) await autocannon({ ...opts, connections: conns, duration: warmup });
  const writes = (opts.method ?? 'GET') !== 'GET';
  const countersBefore = writes ? await dbCounters() : null;
  const before = cpuMs(servicePid ?? -1, database);
  const result = await autocannon({ ...opts, connections: conns, duration: seconds });
  const after = cpuMs(servicePid ?? -1, database);
  const countersAfter = writes ? await dbCounters() : null;
  const per = (ms: number): number | null => (result.requests.total === 0 ? null : (ms * 1000) / result.requests.total);
  return {
    name,
    requests: result.requests.total,
    cpuUs: servicePid === null ? null : per(after.service - before.service),
    systemUs: servicePid === null ? null : per(after.serviceSystem - before.serviceSystem),
    dbUs: per(after.db - before.db),
    connections: conns,
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    errors: result.errors + result.timeouts,
    non2xx: result.non2xx,
    dbWork: databaseWork(countersBefore, countersAfter, result.requests.total),
  };
}

/**
 * The TPC-B-like anchor for the payments row: pgbench at the same connections and seconds, its
 * mean latency in the p50 column's place noted below. No row (a note instead) when pgbench is
 * missing or fails.
 */
async function pgbenchRows(conns: number, notes: string[]): Promise<Row[]> {
  if (!pgbenchAvailable()) {
    notes.push('pgbench row skipped: pgbench is not installed (it comes with the PostgreSQL client tools).');
    return [];
  }
  try {
    const scale = process.env.BENCH_PGBENCH_SCALE ? Number(process.env.BENCH_PGBENCH_SCALE) : conns;
    const r = await pgbenchTpcb(adminUrl, conns, seconds, scale);
    process.stderr.write(`done: ${r.name}\n`);
    notes.push(
      `${r.name}: ${r.transactions} transactions in ${seconds} s at ${conns} connections, latency average ${r.latencyMs} ms (pgbench prints no percentiles); synchronous commit as the server's default.`,
    );
    return [
      {
        name: r.name,
        requests: r.transactions,
        cpuUs: null,
        systemUs: null,
        dbUs: null,
        connections: conns,
        rps: r.tps,
        p50: Number.NaN,
        p99: Number.NaN,
        errors: 0,
        non2xx: 0,
        dbWork: null,
      },
    ];
  } catch (err) {
    notes.push(`pgbench row FAILED: ${err instanceof Error ? err.message.slice(0, 500) : String(err)}`);
    return [];
  }
}

async function main(): Promise<void> {
  if (process.argv.includes('--help') || process.argv.includes('-h')) {
    const options = readFileSync(new URL(import.meta.url), 'utf8')
      .split('\n')
      .filter((l) => /^ \* {3}BENCH_|^ \* {20,}\S/.test(l))
      .map((l) => l.replace(/^ \* /, '  '));
    process.stdout.write(`${HELP}\n${options.join('\n')}\n`);
    return;
  }
  if (process.env.BENCH_BUILD !== 'off' || !existsSync('dist/bootstrap/main.js')) {
    process.stderr.write('building: npm run build\n');
    execFileSync('npm', ['run', 'build', '--silent'], { stdio: 'inherit' });
  }
  const loadBefore = os.loadavg();
  const url = await freshDatabase();
  database = new URL(url).pathname.slice(1);
  statsUrl = url;
  process.stderr.write(
    `database: ${database}${created === null ? ' (BENCH_DATABASE_URL, kept)' : ' (created for this run, dropped at the end)'}\n`,
  );
  try {
    await run(url, loadBefore);
  } finally {
    await dropCreatedDatabase();
  }
}

/** An OTLP/HTTP collector that answers every export at once and keeps nothing but a count. */
async function traceSink(): Promise<{ url: string; exports: () => number; close: () => Promise<void> }> {
  let exports = 0;
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      exports += 1;
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as net.AddressInfo).port}`,
    exports: () => exports,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

async function run(url: string, loadBefore: number[]): Promise<void> {
  const redis = process.env.BENCH_REDIS_URL;
  const serviceEnv: Record<string, string> = {
    DATABASE_URL: url,
    // Cluster workers share one port through the primary; one process can take any free port.
    PORT: workers ? String(40_000 + Math.floor(Math.random() * 10_000)) : '0',
    HOST: '127.0.0.1',
    RATE_LIMITS: rateLimits,
    ...RAISED_LIMITS,
    LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'info',
    SEED_DEMO: 'off',
    ...(workers ? { CLUSTER_WORKERS: workers } : {}),
    ...(process.env.BENCH_DB_POOL_MAX ? { DB_POOL_MAX: process.env.BENCH_DB_POOL_MAX } : {}),
  };
  const nodeArgs = [
    ...(process.env.BENCH_NODE_ARGS?.split(' ').filter(Boolean) ?? []),
    ...(profileDir ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : []),
  ];
  const listening = /Listening on http:\/\/[^:]+:(\d+)/;
  const extras: Record<string, string> = {
    ...(redis ? { REDIS_URL: redis, REDIS_KEY_PREFIX: `pbw-bench:${process.pid}-${Date.now()}:` } : {}),
    ...(metrics ? { METRICS_PORT: '0' } : {}),
  };
  const service = await start('service', ['dist/bootstrap/main.js'], { ...serviceEnv, ...extras }, listening, nodeArgs);
  const otherPort = () => (workers ? { PORT: String(50_000 + Math.floor(Math.random() * 10_000)) } : {});
  const unlimited = limitsComparison
    ? await start(
        'service-unlimited',
        ['dist/bootstrap/main.js'],
        // Metrics as the services it is compared with: the rows differ by their limits alone.
        { ...serviceEnv, RATE_LIMITS: 'off', ...(metrics ? { METRICS_PORT: '0' } : {}), ...otherPort() },
        listening,
        nodeArgs,
      )
    : null;
  // The cost of the metrics: the same service (limits on) without them.
  const unmeasured =
    metrics && limitsComparison
      ? await start(
          'service-no-metrics',
          ['dist/bootstrap/main.js'],
          { ...serviceEnv, ...extras, METRICS_PORT: '', ...otherPort() },
          listening,
          nodeArgs,
        )
      : null;
  // The limits counted in Redis, beside the limits in process memory (the main service) and off.
  const redisSetting = process.env.BENCH_LIMITS_REDIS ?? 'redis://127.0.0.1:6379';
  const redisCompared =
    limitsComparison && !redis && redisSetting !== 'off' && (process.env.BENCH_LIMITS_REDIS !== undefined || (await answers(redisSetting)))
      ? await start(
          'service-redis',
          ['dist/bootstrap/main.js'],
          {
            ...serviceEnv,
            ...extras,
            REDIS_URL: redisSetting,
            REDIS_KEY_PREFIX: `pbw-bench:${process.pid}-${Date.now()}-redis:`,
            ...otherPort(),
          },
          listening,
          nodeArgs,
        )
      : null;
  // Tracing's cost: the main service (limits on, tracing off) again with tracing on.
  const sink = tracing && limitsComparison ? await traceSink() : null;
  const traced =
    sink === null
      ? null
      : await start(
          'service-traced',
          ['dist/bootstrap/main.js'],
          { ...serviceEnv, ...extras, OTEL_EXPORTER_OTLP_ENDPOINT: sink.url, ...otherPort() },
          listening,
          nodeArgs,
        );
  const bare = await start('bare', ['bench/bare-express.ts'], { PORT: '0' }, /READY (\d+)/);
  const provider = oidc ? await start('oidc', ['bench/oidc-server.ts'], { PORT: '0' }, /READY (\d+)/) : null;
  const children = [service, unlimited, unmeasured, redisCompared, traced, bare, provider].filter((c) => c !== null);
  const rows: Row[] = [];
  const failed: string[] = [];
  const notesBeside: string[] = [];
  try {
    const ctx: BenchContext = {
      base: `http://127.0.0.1:${service.port}`,
      databaseUrl: url,
      oidcBase: provider === null ? null : `http://127.0.0.1:${provider.port}`,
      seconds,
      memo: new Map(),
    };
    const bareOpts = { url: `http://127.0.0.1:${bare.port}/bare` };
    const bareRuns = [await load('bare Express (same JSON)', connections, bareOpts, bare.child.pid!)];
    rows.push(bareRuns[0]!);
    for (const scenario of SCENARIOS) {
      if (!selected(scenario.name)) continue;
      try {
        const opts = await scenario.prepare(ctx);
        if (opts === null) continue;
        const pid = opts.url?.startsWith(ctx.base) ? service.child.pid! : (provider?.child.pid ?? null);
        const compared =
          scenario.name === 'GET /api/v1/agent/account' &&
          (unlimited !== null || unmeasured !== null || redisCompared !== null || traced !== null);
        if (!compared) {
          const row = await load(scenario.name, scenario.connections ?? connections, opts, pid);
          rows.push(row);
          process.stderr.write(`done: ${scenario.name}\n`);
          const anchored =
            scenario.name.startsWith('POST /me/payments') ||
            scenario.name.startsWith('POST /api/v1/orders {hold}') ||
            scenario.name.startsWith('POST /me/authorizations') ||
            scenario.name.startsWith('POST /api/v1/orders (paid');
          if (anchored && pgbench && !rows.some((r) => r.name.startsWith('pgbench')))
            rows.push(...(await pgbenchRows(row.connections, notesBeside)));
          continue;
        }
        // The account read and the services it is compared with (bare Express, limits off,
        // metrics off) are measured in turns, the order rotated each round, so that a change in the
        // machine's load during the run falls on all of them alike.
        const at = (child: { port: number }) => ({ ...opts, url: String(opts.url).replace(ctx.base, `http://127.0.0.1:${child.port}`) });
        const contenders: Array<{ name: string; run: () => Promise<Row> }> = [
          { name: scenario.name, run: () => load(scenario.name, connections, opts, pid) },
          ...(unlimited === null
            ? []
            : [
                {
                  name: `${scenario.name} (RATE_LIMITS=off, same run)`,
                  run: () => load('', connections, at(unlimited), unlimited.child.pid!),
                },
              ]),
          ...(redisCompared === null
            ? []
            : [
                {
                  name: `${scenario.name} (limits counted in Redis, same run)`,
                  run: () => load('', connections, at(redisCompared), redisCompared.child.pid!),
                },
              ]),
          ...(traced === null
            ? []
            : [
                {
                  name: `${scenario.name} (tracing on, spans dropped by a local collector, same run)`,
                  run: () => load('', connections, at(traced), traced.child.pid!),
                },
              ]),
          ...(unmeasured === null
            ? []
            : [
                {
                  name: `${scenario.name} (limits on, metrics off, same run)`,
                  run: () => load('', connections, at(unmeasured), unmeasured.child.pid!),
                },
              ]),
          { name: 'bare Express (same JSON)', run: () => load('', connections, bareOpts, bare.child.pid!) },
        ];
        const runs = new Map<string, Row[]>(contenders.map((c) => [c.name, []]));
        for (let round = 0; round < rounds; round += 1) {
          for (let i = 0; i < contenders.length; i += 1) {
            const c = contenders[(i + round) % contenders.length]!;
            runs.get(c.name)!.push(await c.run());
          }
        }
        bareRuns.push(...runs.get('bare Express (same JSON)')!);
        rows[0] = merged('bare Express (same JSON)', bareRuns);
        for (const c of contenders.slice(0, -1)) rows.push(merged(c.name, runs.get(c.name)!));
        process.stderr.write(`done: ${scenario.name} (${rounds} rounds)\n`);
      } catch (err) {
        failed.push(`${scenario.name}: ${err instanceof Error ? err.message : String(err)}`);
        process.stderr.write(`FAILED ${scenario.name}: ${err instanceof Error ? err.stack : String(err)}\n`);
      }
    }
  } finally {
    for (const c of children) c.child.kill('SIGTERM');
    await Promise.all(children.map((c) => new Promise((r) => (c.child.exitCode !== null ? r(null) : c.child.once('exit', r)))));
    if (sink !== null) {
      // A traced service that exported nothing measured nothing: say so beside the figures.
      if (sink.exports() === 0) notesBeside.push('Tracing: the traced service exported no spans; its row does not measure tracing.');
      await sink.close();
    }
  }
  const loadAfter = os.loadavg();
  const ceiling = rows[0]!.rps;
  const cpu = os.cpus();
  const machine = `${cpu.length} × ${cpu[0]?.model ?? 'cpu'}, ${Math.round(os.totalmem() / 2 ** 30)} GiB, ${os.type()} ${os.release()}, Node ${process.version}, PostgreSQL local`;
  const header = `| scenario | conns | req/s | p50 ms | p99 ms | errors | non-2xx | ratio to bare Express | server CPU µs/req | PostgreSQL CPU µs/req |\n|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|`;
  const lines = rows.map(
    (r) =>
      `| ${r.name} | ${r.connections} | ${Math.round(r.rps)} | ${Number.isNaN(r.p50) ? '' : r.p50} | ${Number.isNaN(r.p99) ? '' : r.p99} | ${r.errors} | ${r.non2xx} | ${(r.rps / ceiling).toFixed(2)} | ${r.cpuUs === null ? '' : Math.round(r.cpuUs)} | ${r.dbUs === null ? '' : Math.round(r.dbUs)} |`,
  );
  const ours = rows.find((r) => r.name.startsWith('POST /oauth/token'));
  const theirs = rows.find((r) => r.name.startsWith('oidc-provider'));
  const limited = rows.find((r) => r.name === 'GET /api/v1/agent/account');
  const free = rows.find((r) => r.name.startsWith('GET /api/v1/agent/account (RATE_LIMITS=off'));
  const noMetrics = rows.find((r) => r.name.startsWith('GET /api/v1/agent/account (limits on, metrics off'));
  const inRedis = rows.find((r) => r.name.startsWith('GET /api/v1/agent/account (limits counted in Redis'));
  const tracedRow = rows.find((r) => r.name.startsWith('GET /api/v1/agent/account (tracing on'));
  const payments = rows.find((r) => r.name.startsWith('POST /me/payments'));
  const tpcb = rows.find((r) => r.name.startsWith('pgbench TPC-B-like'));
  const holds = rows.find((r) => r.name.startsWith('POST /api/v1/orders {hold}'));
  const authorizations = rows.find((r) => r.name.startsWith('POST /me/authorizations'));
  const duringLapses = rows.find((r) => r.name.startsWith('GET /api/v1/agent/account (while'));
  const idleAccount = rows.find((r) => r.name === 'GET /api/v1/agent/account');
  const longBalance = rows.find((r) => r.name === 'GET /me/balance (100,000 transactions)');
  const balanceThen = rows.find((r) => r.name.startsWith('GET /me/balance?at='));
  const paid = rows.find((r) => r.name.startsWith('POST /api/v1/orders (paid'));
  const notes = [
    ...(ours && theirs ? [`Token issuance: ${(ours.rps / theirs.rps).toFixed(2)}× oidc-provider.`] : []),
    ...(limited && free
      ? [
          `Account read with rate limits on (counted ${redis ? 'in Redis' : 'in process memory'}): ${(limited.rps / free.rps).toFixed(2)} of the same read with RATE_LIMITS=off.`,
        ]
      : []),
    ...(inRedis && free && limited
      ? [
          `Account read with rate limits counted in Redis: ${(inRedis.rps / free.rps).toFixed(2)} of the same read with RATE_LIMITS=off, ${(inRedis.rps / limited.rps).toFixed(2)} of the limits counted in process memory (${Math.round(inRedis.cpuUs ?? 0)} against ${Math.round(free.cpuUs ?? 0)} µs of server CPU a request with limits off).`,
        ]
      : []),
    ...(tracedRow && limited
      ? [
          `Account read with tracing on (every span exported, then dropped): ${(tracedRow.rps / limited.rps).toFixed(2)} of the same read with tracing off (${Math.round(tracedRow.cpuUs ?? 0)} against ${Math.round(limited.cpuUs ?? 0)} µs of server CPU a request).`,
        ]
      : []),
    ...(payments && tpcb
      ? [
          `Payments: ${(payments.rps / tpcb.rps).toFixed(2)} of pgbench's TPC-B-like transactions a second on the same server at the same connections (${Math.round(payments.rps)} payments/s against ${Math.round(tpcb.rps)} transactions/s).`,
        ]
      : []),
    ...(holds && tpcb
      ? [
          `Hold + confirm on an instant operator: ${(holds.rps / 2 / tpcb.rps).toFixed(2)} of pgbench's TPC-B-like transactions a second at the same connections (${Math.round(holds.rps / 2)} bookings/s, two requests each, against ${Math.round(tpcb.rps)} transactions/s).`,
        ]
      : []),
    ...(authorizations && tpcb
      ? [
          `Authorize + capture: ${(authorizations.rps / 2 / tpcb.rps).toFixed(2)} of pgbench's TPC-B-like transactions a second at the same connections (${Math.round(authorizations.rps / 2)} authorizations captured/s, two requests each, against ${Math.round(tpcb.rps)} transactions/s).`,
        ]
      : []),
    ...(duringLapses && idleAccount
      ? [
          `Account read while lapsed holds are recorded: p99 ${duringLapses.p99} ms against ${idleAccount.p99} ms idle (${(duringLapses.p99 / Math.max(1, idleAccount.p99)).toFixed(2)}×); the second instance recorded ${lapseRecording.recorded} lapses in ${lapseRecording.ms} ms, batches of 500.`,
        ]
      : []),
    ...(longBalance && balanceThen
      ? [
          `Balance at an instant over a user with 100,000 transactions: ${(balanceThen.rps / longBalance.rps).toFixed(2)} of the current balance read's requests a second (p99 ${balanceThen.p99} against ${longBalance.p99} ms).`,
        ]
      : []),
    ...(paid && tpcb
      ? [
          `Paid instant order of a prepaid agent: ${(paid.rps / tpcb.rps).toFixed(2)} of pgbench's TPC-B-like transactions a second at the same connections (${Math.round(paid.rps)} orders/s against ${Math.round(tpcb.rps)} transactions/s; ${Math.round(paid.cpuUs ?? 0)} µs of server CPU an order).`,
        ]
      : []),
    ...notesBeside,
    ...(limited && noMetrics
      ? [
          `Account read with metrics on: ${(limited.rps / noMetrics.rps).toFixed(2)} of the same service without metrics (${Math.round(limited.cpuUs ?? 0)} against ${Math.round(noMetrics.cpuUs ?? 0)} µs of server CPU a request).`,
        ]
      : []),
    `Server CPU per request spent in the kernel (system time: socket reads and writes, other system calls), of the total: ${rows
      .filter((r) => r.cpuUs !== null && r.systemUs !== null)
      .map((r) => `${r.name} ${Math.round(r.systemUs!)} of ${Math.round(r.cpuUs!)} µs`)
      .join('; ')}.`,
    ...rows.filter((r) => r.dbWork !== null).map((r) => `PostgreSQL per request, ${r.name}: ${r.dbWork}.`),
    ...failed.map((f) => `FAILED ${f}`),
  ];
  const table = `${header}\n${lines.join('\n')}${notes.length > 0 ? `\n\n${notes.join('\n')}` : ''}`;
  const fmt = (l: number[]): string => l.map((x) => x.toFixed(2)).join(' ');
  const setup =
    `autocannon in this process; the compiled service${workers ? ` (${workers} cluster workers)` : ''}, bare Express and oidc-provider each in its own process; ` +
    `${seconds} s per scenario after ${warmup} s of warm-up (the account read, its comparisons and bare Express in ${rounds} rounds, in turns); service LOG_LEVEL=${serviceEnv.LOG_LEVEL}, RATE_LIMITS=${rateLimits}` +
    `${rateLimits === 'on' ? ` (limits raised, counted ${redis ? 'in Redis' : 'in process memory'})` : ''}, metrics ${metrics ? 'on' : 'off'}, database ${database}, ` +
    `PostgreSQL over ${new URL(url).searchParams.get('host')?.startsWith('/') ? 'its Unix socket' : 'TCP'}` +
    `${serviceEnv.DB_POOL_MAX ? `, DB_POOL_MAX=${serviceEnv.DB_POOL_MAX}` : ''}. Load average before ${fmt(loadBefore)}, after ${fmt(loadAfter)}.`;
  process.stdout.write(`\n${machine}\n${setup}\n\n${table}\n`);
  if (resultsFile !== '-') {
    // Appended: earlier runs stay for comparison.
    const title = process.env.BENCH_TITLE ?? `Run of ${new Date().toISOString()}`;
    appendFileSync(resultsFile, `\n## ${title}\n\nMachine: ${machine}.\n\n${setup} Run: ${new Date().toISOString()}.\n\n${table}\n`);
  }
  if (failed.length > 0) process.exitCode = 1;
}

main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
