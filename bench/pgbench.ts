import { execFile, execFileSync } from 'node:child_process';
import pg from 'pg';

/** What pgbench measured: transactions a second and their mean latency. */
export interface PgbenchResult {
  readonly name: string;
  readonly tps: number;
  readonly transactions: number;
  readonly latencyMs: number;
  readonly scale: number;
}

/** Is pgbench on the PATH? */
export function pgbenchAvailable(): boolean {
  try {
    execFileSync('pgbench', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

const run = (args: string[], env: NodeJS.ProcessEnv): Promise<string> =>
  new Promise((resolve, reject) => {
    execFile('pgbench', args, { env, maxBuffer: 16 * 2 ** 20 }, (err, stdout, stderr) => {
      if (err) reject(new Error(`pgbench ${args.join(' ')}: ${stderr || err.message}`));
      else resolve(`${stdout}\n${stderr}`);
    });
  });

/**
 * PostgreSQL's own TPC-B-like benchmark on the same server, as an anchor for the payments row:
 * `pgbench -i -s <scale>` into a scratch database (scale at least the clients, as pgbench's
 * documentation asks, so that clients do not all queue on one branch row), then the builtin
 * tpcb-like script, `pgbench -c N -j N -T S -M prepared`, with the server's synchronous commit.
 * The scratch database is dropped after, whatever happened.
 */
export async function pgbenchTpcb(
  adminUrl: string,
  clients: number,
  seconds: number,
  scale = Math.max(1, clients),
): Promise<PgbenchResult> {
  const name = `pbw_pgbench_${Date.now()}_${process.pid}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${name}`);
    const url = new URL(adminUrl);
    const env = {
      ...process.env,
      PGHOST: url.hostname,
      PGPORT: url.port || '5432',
      PGUSER: decodeURIComponent(url.username || 'postgres'),
      ...(url.password ? { PGPASSWORD: decodeURIComponent(url.password) } : {}),
    };
    try {
      await run(['-i', '-q', '-s', String(scale), name], env);
      const out = await run(['-c', String(clients), '-j', String(clients), '-T', String(seconds), '-M', 'prepared', name], env);
      const tps = /tps = ([\d.]+) \(without initial connection time\)/.exec(out) ?? /tps = ([\d.]+)/.exec(out);
      const latency = /latency average = ([\d.]+) ms/.exec(out);
      const done = /number of transactions actually processed: (\d+)/.exec(out);
      if (tps === null) throw new Error(`pgbench printed no tps:\n${out.slice(-2000)}`);
      return {
        name: `pgbench TPC-B-like (builtin tpcb-like, scale ${scale}, -M prepared)`,
        tps: Number(tps[1]),
        transactions: done === null ? 0 : Number(done[1]),
        latencyMs: latency === null ? Number.NaN : Number(latency[1]),
        scale,
      };
    } finally {
      await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    }
  } finally {
    await admin.end();
  }
}
