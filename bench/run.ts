/**
 * `npm run bench`: starts the service on PostgreSQL and a bare Express route in separate
 * processes, drives each hot path with autocannon from this process, and prints requests/s,
 * p50, p99, errors and the ratio to bare Express. The table is also written to bench/results.md.
 *
 * BENCH_DATABASE_URL (default: a fresh database `pbw_bench` on the local server), BENCH_SECONDS
 * (default 10), BENCH_CONNECTIONS (default 50), BENCH_ONLY (comma-separated scenario names).
 */
import autocannon from 'autocannon';
import { spawn, type ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import os from 'node:os';
import pg from 'pg';
import { SCENARIOS, type BenchContext } from './scenarios.js';

const seconds = Number(process.env.BENCH_SECONDS ?? 10);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 50);
const only = process.env.BENCH_ONLY?.split(',').map((s) => s.trim());

async function freshDatabase(): Promise<string> {
  if (process.env.BENCH_DATABASE_URL) return process.env.BENCH_DATABASE_URL;
  const admin = new pg.Client({ connectionString: 'postgres://postgres@127.0.0.1:5432/postgres' });
  await admin.connect();
  await admin.query('DROP DATABASE IF EXISTS pbw_bench WITH (FORCE)');
  await admin.query('CREATE DATABASE pbw_bench');
  await admin.end();
  return 'postgres://postgres@127.0.0.1:5432/pbw_bench';
}

function start(args: string[], env: Record<string, string>, ready: RegExp): Promise<{ child: ChildProcess; port: number }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', ...args], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    const timer = setTimeout(() => reject(new Error(`not ready: ${args.join(' ')}\n${out}`)), 60_000);
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const m = ready.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve({ child, port: Number(m[1]) });
      }
    });
    child.once('exit', (code) => reject(new Error(`exited ${code}: ${args.join(' ')}\n${out}`)));
  });
}

interface Row {
  name: string;
  rps: number;
  p50: number;
  p99: number;
  errors: number;
  non2xx: number;
  total: number;
}

async function load(name: string, opts: autocannon.Options): Promise<Row> {
  const result = await autocannon({ connections, duration: seconds, ...opts });
  return {
    name,
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    errors: result.errors + result.timeouts,
    non2xx: result.non2xx,
    total: result.requests.total,
  };
}

async function main(): Promise<void> {
  const url = await freshDatabase();
  const workers = process.env.BENCH_CLUSTER_WORKERS;
  const service = await start(
    ['src/bootstrap/main.ts'],
    {
      DATABASE_URL: url,
      PORT: String(40_000 + Math.floor(Math.random() * 10_000)),
      HOST: '127.0.0.1',
      RATE_LIMITS: 'off',
      LOG_LEVEL: 'warn',
      SEED_DEMO: 'off',
      ...(workers ? { CLUSTER_WORKERS: workers } : {}),
    },
    /Listening on http:\/\/[^:]+:(\d+)/,
  );
  const bare = await start(['bench/bare-express.ts'], { PORT: '0' }, /READY (\d+)/);
  const base = `http://127.0.0.1:${service.port}`;
  const rows: Row[] = [];
  try {
    const ctx: BenchContext = { base, databaseUrl: url };
    rows.push(await load('bare Express (same JSON)', { url: `http://127.0.0.1:${bare.port}/bare` }));
    for (const scenario of SCENARIOS) {
      if (only && !only.includes(scenario.name)) continue;
      const opts = await scenario.prepare(ctx);
      rows.push(await load(scenario.name, opts));
    }
  } finally {
    service.child.kill('SIGTERM');
    bare.child.kill('SIGTERM');
  }
  const ceiling = rows[0]!.rps;
  const machine = `${os.cpus().length} × ${os.cpus()[0]?.model ?? 'cpu'}, ${Math.round(os.totalmem() / 2 ** 30)} GiB, Node ${process.version}, PostgreSQL local`;
  const header = `| scenario | req/s | p50 ms | p99 ms | errors | non-2xx | ratio to bare Express |\n|---|---:|---:|---:|---:|---:|---:|`;
  const lines = rows.map(
    (r) => `| ${r.name} | ${Math.round(r.rps)} | ${r.p50} | ${r.p99} | ${r.errors} | ${r.non2xx} | ${(r.rps / ceiling).toFixed(2)} |`,
  );
  const table = `${header}\n${lines.join('\n')}`;
  process.stdout.write(`\n${machine}; ${connections} connections, ${seconds} s each${workers ? `, ${workers} cluster workers` : ''}\n\n${table}\n`);
  writeFileSync(
    'bench/results.md',
    `# Benchmark results\n\nMachine: ${machine}. Load: autocannon, ${connections} connections, ${seconds} s per scenario, ` +
      `in a separate process from the servers${workers ? `; service with ${workers} cluster workers` : ''}. Run: ${new Date().toISOString()}.\n\n${table}\n`,
  );
}

main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
