/**
 * `npm run chaos`: fault scenarios against the service on a private PostgreSQL cluster (its own
 * data folder and port; the machine's PostgreSQL is never touched). For each scenario it prints
 * one row per workload: requests sent, acknowledged (2xx), failed, in-flight requests dropped at
 * the fault, acknowledged writes missing afterwards, and the time from the fault to the first
 * acknowledged request sent after it.
 *
 * Adding a workload (orders, payments): write a `Workload` (setup, one request, verify) and
 * append it to WORKLOADS; every scenario then runs it too.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { freePort, startPrivatePostgres, type PrivatePostgres } from './private-postgres.js';

const LOAD_MS = Number(process.env.CHAOS_LOAD_MS ?? 2000);
const AFTER_RECOVERY_MS = 1000;
const GIVE_UP_MS = 20_000;

/** What a workload's single request reports. */
interface Outcome {
  readonly status: number | null;
  /** The id of what an acknowledged write created, to look for afterwards. */
  readonly id?: string;
  readonly error?: string;
}

/** A kind of traffic: prepared once per scenario, then sent by several concurrent loops. */
interface Workload {
  readonly name: string;
  readonly concurrency: number;
  /** True when the requests write: acknowledged ids are checked after the scenario. */
  readonly writes: boolean;
  setup(ctx: Ctx): Promise<void>;
  send(ctx: Ctx): Promise<Outcome>;
  /** How many of the acknowledged ids are missing from the database. */
  lost(ctx: Ctx, ids: readonly string[]): Promise<number>;
}

/** What workloads may use: the server's base URL and a direct database connection. */
interface Ctx {
  base: string;
  db: pg.Client;
  channelCode: string;
  apiKey: string;
}

const post = async (ctx: Ctx, path: string, body: unknown, headers: Record<string, string> = {}): Promise<Response> =>
  fetch(`${ctx.base}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(15_000),
  });

const missing = async (ctx: Ctx, table: string, ids: readonly string[]): Promise<number> => {
  if (ids.length === 0) return 0;
  const found = await ctx.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${table} WHERE id = ANY($1)`, [ids]);
  return ids.length - (found.rows[0]?.n ?? 0);
};

const WORKLOADS: readonly Workload[] = [
  {
    name: 'agent writes (POST /chaos/agents)',
    concurrency: 6,
    writes: true,
    setup: async () => undefined,
    send: async (ctx) => {
      const res = await post(ctx, '/chaos/agents', { channelCode: ctx.channelCode, name: 'chaos' });
      const body = (await res.json().catch(() => ({}))) as { id?: string };
      return { status: res.status, ...(res.status === 201 && body.id ? { id: body.id } : {}) };
    },
    lost: (ctx, ids) => missing(ctx, 'agents', ids),
  },
  {
    name: 'account reads (GET /api/v1/agent/account)',
    concurrency: 6,
    writes: false,
    setup: async () => undefined,
    send: async (ctx) => {
      const res = await fetch(`${ctx.base}/api/v1/agent/account`, { headers: { 'X-API-KEY': ctx.apiKey }, signal: AbortSignal.timeout(15_000) });
      await res.arrayBuffer();
      return { status: res.status };
    },
    lost: async () => 0,
  },
  // Orders and payments: append e.g.
  // { name: 'orders (POST /api/v1/orders)', concurrency: 6, writes: true, setup: …quote…, send: …Idempotency-Key…,
  //   lost: (ctx, ids) => missing(ctx, 'orders', ids) },
];

interface Record_ {
  readonly workload: string;
  readonly sentAt: number;
  readonly doneAt: number;
  readonly outcome: Outcome;
}

/** Runs every workload's loops until `stop()`; keeps every request's outcome. */
function startLoad(ctx: Ctx): { records: Record_[]; stop: () => Promise<void> } {
  const records: Record_[] = [];
  let running = true;
  const loops: Promise<void>[] = [];
  for (const w of WORKLOADS) {
    for (let i = 0; i < w.concurrency; i += 1) {
      loops.push(
        (async () => {
          while (running) {
            const sentAt = Date.now();
            let outcome: Outcome;
            try {
              outcome = await w.send(ctx);
            } catch (err) {
              const cause = (err as { cause?: { code?: string } }).cause;
              outcome = { status: null, error: cause?.code ?? (err as Error).name };
            }
            records.push({ workload: w.name, sentAt, doneAt: Date.now(), outcome });
            // A server that refuses connections answers at once: do not spin.
            if (outcome.status === null || outcome.status >= 500) await sleep(25);
          }
        })(),
      );
    }
  }
  return {
    records,
    stop: async () => {
      running = false;
      await Promise.all(loops);
    },
  };
}

interface Server {
  child: ChildProcess;
  output: () => string;
  exited: Promise<number | null>;
}

async function startServer(env: Record<string, string>): Promise<Server> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'scripts/chaos-server.ts'], {
    env: { ...process.env, LOG_LEVEL: 'warn', SEED_DEMO: 'off', RATE_LIMITS: 'off', CHAOS_ROUTES: 'on', HOST: '127.0.0.1', SHUTDOWN_TIMEOUT_SECONDS: '10', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout?.on('data', (c: Buffer) => (out += c.toString()));
  child.stderr?.on('data', (c: Buffer) => (out += c.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const started = Date.now();
  while (!/Listening on/.test(out)) {
    if (child.exitCode !== null || Date.now() - started > 60_000) throw new Error(`server did not start:\n${out}`);
    await sleep(50);
  }
  return { child, output: () => out, exited };
}

interface Row {
  scenario: string;
  workload: string;
  sent: number;
  acknowledged: number;
  failed: number;
  droppedInFlight: number;
  lost: number | '-';
  recoveryMs: number | null;
  note: string;
}

/**
 * One row per workload. Recovery is from the fault to the first acknowledgement of a request sent
 * at or after `recoverFrom` (the fault, or the old process's exit when a new one takes over, so
 * requests the old process finished while draining do not count as recovery).
 */
async function summarise(
  scenario: string,
  ctx: Ctx,
  records: readonly Record_[],
  faultAt: number,
  note: (w: Workload) => string,
  recoverFrom = faultAt,
): Promise<Row[]> {
  const rows: Row[] = [];
  for (const w of WORKLOADS) {
    const mine = records.filter((r) => r.workload === w.name);
    const acked = mine.filter((r) => r.outcome.status !== null && r.outcome.status >= 200 && r.outcome.status < 300);
    const firstAfter = acked.filter((r) => r.sentAt >= recoverFrom).sort((a, b) => a.doneAt - b.doneAt)[0];
    const inFlight = mine.filter((r) => r.sentAt < faultAt && r.doneAt >= faultAt);
    rows.push({
      scenario,
      workload: w.name,
      sent: mine.length,
      acknowledged: acked.length,
      failed: mine.length - acked.length,
      droppedInFlight: inFlight.filter((r) => r.outcome.status === null).length,
      lost: w.writes ? await w.lost(ctx, acked.map((r) => r.outcome.id).filter((id): id is string => id !== undefined)) : '-',
      recoveryMs: firstAfter ? firstAfter.doneAt - faultAt : null,
      note: note(w),
    });
  }
  return rows;
}

const statusCounts = (records: readonly Record_[], workload: string): string => {
  const counts = new Map<string, number>();
  for (const r of records.filter((x) => x.workload === workload && !(x.outcome.status !== null && x.outcome.status < 300))) {
    const k = r.outcome.status === null ? (r.outcome.error ?? 'error') : String(r.outcome.status);
    counts.set(k, (counts.get(k) ?? 0) + 1);
  }
  return [...counts].map(([k, n]) => `${k}×${n}`).join(' ') || 'none';
};

async function waitUntil(check: () => boolean, ms: number): Promise<void> {
  const started = Date.now();
  while (!check() && Date.now() - started < ms) await sleep(20);
}

const recovered = (records: readonly Record_[], faultAt: number): boolean =>
  WORKLOADS.every((w) => records.some((r) => r.workload === w.name && r.sentAt >= faultAt && r.outcome.status !== null && r.outcome.status < 300));

async function main(): Promise<void> {
  const pgPort = Number(process.env.CHAOS_PG_PORT ?? 0) || (await freePort());
  process.stdout.write(`chaos: private PostgreSQL on port ${pgPort} (the machine's server is not touched)\n`);
  const cluster: PrivatePostgres = await startPrivatePostgres(pgPort);
  const rows: Row[] = [];
  try {
    await cluster.createDatabase('pbw_chaos');
    const url = cluster.url('pbw_chaos');
    const port = await freePort();
    const env = { DATABASE_URL: url, PORT: String(port) };
    const db = new pg.Client({ connectionString: url });
    const ctx: Ctx = { base: `http://127.0.0.1:${port}`, db, channelCode: 'CHAOS', apiKey: '' };

    let server = await startServer(env);
    await db.connect();
    db.on('error', () => undefined);
    await db.query(`INSERT INTO channels (code, name, currency, markup_bps) VALUES ('CHAOS', 'Chaos', 'THB', 0) ON CONFLICT DO NOTHING`);
    const agent = (await (await post(ctx, '/chaos/agents', { channelCode: 'CHAOS', name: 'reader' })).json()) as { id: string };
    ctx.apiKey = ((await (await post(ctx, '/chaos/keys', { agentId: agent.id })).json()) as { apiKey: string }).apiKey;
    for (const w of WORKLOADS) await w.setup(ctx);

    // 1. SIGTERM under load, then a new process on the same port (as an orchestrator would).
    {
      const load = startLoad(ctx);
      await sleep(LOAD_MS);
      const faultAt = Date.now();
      server.child.kill('SIGTERM');
      const code = await server.exited;
      const exitedAt = Date.now();
      server = await startServer(env);
      const startMs = Date.now() - exitedAt;
      await waitUntil(() => recovered(load.records, exitedAt), GIVE_UP_MS);
      await sleep(AFTER_RECOVERY_MS);
      await load.stop();
      rows.push(
        ...(await summarise(
          'SIGTERM under load',
          ctx,
          load.records,
          faultAt,
          (w) => `exit code ${String(code)} ${exitedAt - faultAt} ms after SIGTERM; new process up in ${startMs} ms; failures: ${statusCounts(load.records, w.name)}`,
          exitedAt,
        )),
      );
    }

    // 2. kill -9 under load, then a new process.
    {
      const load = startLoad(ctx);
      await sleep(LOAD_MS);
      const faultAt = Date.now();
      server.child.kill('SIGKILL');
      await server.exited;
      const exitedAt = Date.now();
      server = await startServer(env);
      const startMs = Date.now() - exitedAt;
      await waitUntil(() => recovered(load.records, exitedAt), GIVE_UP_MS);
      await sleep(AFTER_RECOVERY_MS);
      await load.stop();
      rows.push(
        ...(await summarise('kill -9 under load', ctx, load.records, faultAt, (w) => `new process up in ${startMs} ms; failures: ${statusCounts(load.records, w.name)}`, exitedAt)),
      );
    }

    // 3. PostgreSQL restart under load; the service keeps running.
    {
      const load = startLoad(ctx);
      await sleep(LOAD_MS);
      const faultAt = Date.now();
      await db.end().catch(() => undefined);
      await cluster.restart('fast');
      const restartMs = Date.now() - faultAt;
      await waitUntil(() => recovered(load.records, faultAt), GIVE_UP_MS);
      await sleep(AFTER_RECOVERY_MS);
      await load.stop();
      ctx.db = new pg.Client({ connectionString: url });
      await ctx.db.connect();
      rows.push(...(await summarise('PostgreSQL restart under load', ctx, load.records, faultAt, (w) => `server down ${restartMs} ms; failures: ${statusCounts(load.records, w.name)}`)));
    }

    // 4. Pool exhaustion: a small pool, and the agents table locked for 2 s by another session.
    {
      server.child.kill('SIGTERM');
      await server.exited;
      server = await startServer({ ...env, DB_POOL_MAX: '2', DB_ACQUIRE_TIMEOUT_MS: '500' });
      const load = startLoad(ctx);
      await sleep(LOAD_MS / 2);
      const locker = new pg.Client({ connectionString: url });
      await locker.connect();
      await locker.query('BEGIN');
      await locker.query('LOCK TABLE agents IN ACCESS EXCLUSIVE MODE');
      const faultAt = Date.now();
      await sleep(2000);
      await locker.query('ROLLBACK');
      await locker.end();
      const releasedAt = Date.now();
      await waitUntil(() => WORKLOADS.every((w) => load.records.some((r) => r.workload === w.name && r.sentAt >= releasedAt && r.outcome.status === (w.writes ? 201 : 200))), GIVE_UP_MS);
      await sleep(AFTER_RECOVERY_MS);
      await load.stop();
      const slowest503 = Math.max(0, ...load.records.filter((r) => r.outcome.status === 503).map((r) => r.doneAt - r.sentAt));
      // Recovery here is counted from the release of the lock.
      rows.push(
        ...(await summarise('pool exhaustion (2 connections, table locked 2 s)', ctx, load.records, faultAt, (w) => `slowest 503: ${slowest503} ms; recovery counted from the lock's release; failures: ${statusCounts(load.records, w.name)}`)).map(
          (r) => ({ ...r, recoveryMs: firstAckAfter(load.records, r.workload, releasedAt) }),
        ),
      );
    }
    server.child.kill('SIGTERM');
    await server.exited;
    await ctx.db.end().catch(() => undefined);
  } finally {
    await cluster.destroy();
  }
  print(rows);
  const lost = rows.reduce((n, r) => n + (r.lost === '-' ? 0 : r.lost), 0);
  const droppedOnSigterm = rows.filter((r) => r.scenario.startsWith('SIGTERM')).reduce((n, r) => n + r.droppedInFlight, 0);
  process.stdout.write(`\nlost acknowledged writes: ${lost}; in-flight requests dropped on SIGTERM: ${droppedOnSigterm}\n`);
  process.exitCode = lost === 0 && droppedOnSigterm === 0 ? 0 : 1;
}

function firstAckAfter(records: readonly Record_[], workload: string, at: number): number | null {
  const first = records
    .filter((r) => r.workload === workload && r.sentAt >= at && r.outcome.status !== null && r.outcome.status < 300)
    .sort((a, b) => a.doneAt - b.doneAt)[0];
  return first ? first.doneAt - at : null;
}

function print(rows: readonly Row[]): void {
  const scenarios = [...new Set(rows.map((r) => r.scenario))];
  for (const s of scenarios) {
    process.stdout.write(`\n### ${s}\n\n| workload | sent | acknowledged | failed | in-flight dropped | lost acknowledged writes | recovery (ms) | notes |\n|---|---:|---:|---:|---:|---:|---:|---|\n`);
    for (const r of rows.filter((x) => x.scenario === s)) {
      process.stdout.write(`| ${r.workload} | ${r.sent} | ${r.acknowledged} | ${r.failed} | ${r.droppedInFlight} | ${r.lost} | ${r.recoveryMs ?? 'not recovered'} | ${r.note} |\n`);
    }
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`chaos failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exitCode = 1;
});
