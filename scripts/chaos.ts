/**
 * `npm run chaos`: fault scenarios against the service on a private PostgreSQL cluster (its own
 * data folder and port; the machine's PostgreSQL is never touched). For each scenario it prints
 * one row per workload: requests sent, acknowledged (2xx), failed, in-flight requests dropped at
 * the fault, acknowledged writes missing afterwards, and the time from the fault to the first
 * acknowledged request sent after it.
 *
 * Write workloads also say, after each scenario, whether the data is consistent (a write that was
 * never acknowledged is either whole or absent: the ledger balances, seats add up), and resend
 * requests with their Idempotency-Key once the service is back, to show that a retry applies at
 * most once. Adding a workload: write a `Workload` (setup, one request, verify) and append it to
 * WORKLOADS; every scenario then runs it too.
 *
 * The last scenario runs CHAOS_LB_INSTANCES (3) compiled instances behind HAProxy with Redis
 * (scripts/lb-cluster.ts) and also reports HAProxy's retries, one rate-limit budget across the
 * instances and how fast every instance refuses a revoked key. CHAOS_LB=off leaves it out;
 * CHAOS_ONLY=lb runs it alone.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import net from 'node:net';
import http from 'node:http';
import { freePort, startPrivatePostgres, type PrivatePostgres } from './private-postgres.js';
import { startLbCluster, type Instance, type LbStat } from './lb-cluster.js';
import { localAllowance } from '../src/adapters/redis/rate-limit-counter.redis.js';

const LOAD_MS = Number(process.env.CHAOS_LOAD_MS ?? 2000);
const AFTER_RECOVERY_MS = 1000;
const GIVE_UP_MS = 20_000;

/** A write as sent, with its Idempotency-Key, so that it can be sent again after the fault. */
interface Resend {
  readonly path: string;
  readonly body: unknown;
  readonly headers: Record<string, string>;
  readonly key: string;
}

/** What a workload's single request reports. */
interface Outcome {
  readonly status: number | null;
  /** The id of what an acknowledged write created, to look for afterwards. */
  readonly id?: string;
  readonly error?: string;
  /** When the request that decided the outcome was sent, when a workload makes more than one. */
  readonly sentAt?: number;
  readonly resend?: Resend;
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
  /** What is inconsistent in the stored data (a half-applied write), or nothing. */
  inconsistencies?(ctx: Ctx): Promise<string[]>;
  /** How many of these idempotency keys recorded more than one write. */
  appliedTwice?(ctx: Ctx, keys: readonly string[]): Promise<number>;
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

/** Sends a write and reports it, with what is needed to send it again; a network error is status null. */
async function write(ctx: Ctx, resend: Resend): Promise<Outcome> {
  const sentAt = Date.now();
  try {
    const res = await post(ctx, resend.path, resend.body, resend.headers);
    const body = (await res.json().catch(() => ({}))) as { id?: string; reason?: string };
    if (res.status >= 400) return { status: res.status, sentAt, resend, error: body.reason ?? 'error' };
    return { status: res.status, sentAt, resend, ...(res.status === 201 && body.id ? { id: body.id } : {}) };
  } catch (err) {
    const cause = (err as { cause?: { code?: string } }).cause;
    return { status: null, error: cause?.code ?? (err as Error).name, sentAt, resend };
  }
}

const count = async (ctx: Ctx, sql: string, params: unknown[] = []): Promise<number> =>
  (await ctx.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM (${sql}) AS x`, params)).rows[0]?.n ?? 0;

const random = (n: number): number => Math.floor(Math.random() * n);

/** A date 20 days ahead, for bus trips well inside the booking window. */
const tripDate = (): string => new Date(Date.now() + 20 * 86_400_000).toISOString().slice(0, 10);

/** Bus orders: a quote, then the order with an Idempotency-Key, on one trip of a large coach. */
function ordersWorkload(): Workload {
  let tripId = '';
  return {
    name: 'orders (POST /api/v1/orders)',
    concurrency: 4,
    writes: true,
    setup: async (ctx) => {
      const schedule = (await (await post(ctx, '/chaos/schedules', { seatCapacity: 1_000_000 })).json()) as { operator: { code: string } };
      const res = await fetch(`${ctx.base}/api/v1/express-bus/trips?fromCityId=cty_bangkok&toCityId=cty_pattaya&date=${tripDate()}`, {
        headers: { 'X-API-KEY': ctx.apiKey },
      });
      const trips = (await res.json()) as { data: Array<{ id: string; operator: { code: string } }> };
      tripId = trips.data.find((t) => t.operator.code === schedule.operator.code)?.id ?? '';
      if (tripId === '') throw new Error(`no trip of the chaos schedule: ${JSON.stringify(trips)}`);
    },
    send: async (ctx) => {
      const sentAt = Date.now();
      const quote = await post(ctx, '/api/v1/express-bus/quotes', { tripId, passengers: 1 + random(3) }, { 'X-API-KEY': ctx.apiKey });
      const q = (await quote.json().catch(() => ({}))) as { id?: string };
      if (quote.status !== 201 || !q.id) return { status: quote.status, sentAt };
      const key = `chaos-order-${randomUUID()}`;
      return write(ctx, {
        path: '/api/v1/orders',
        body: { quoteId: q.id, contact: { name: 'Chaos Traveller', email: 'chaos@example.com' } },
        headers: { 'X-API-KEY': ctx.apiKey, 'Idempotency-Key': key },
        key,
      });
    },
    lost: (ctx, ids) => missing(ctx, 'orders', ids),
    inconsistencies: async (ctx) => {
      // Seats: what is left plus what confirmed orders hold is the trip's capacity.
      const seats = await count(
        ctx,
        `SELECT t.trip_id FROM trip_inventory t LEFT JOIN orders o ON o.trip_id = t.trip_id AND o.status = 'CONFIRMED'
         GROUP BY t.trip_id, t.capacity, t.seats_left
         HAVING t.seats_left + COALESCE(SUM((o.seats->>'seats')::int), 0) <> t.capacity`,
      );
      return seats === 0 ? [] : [`${seats} trips whose seats do not add up`];
    },
    appliedTwice: (ctx, keys) =>
      count(ctx, 'SELECT agent_id, idempotency_key FROM orders WHERE idempotency_key = ANY($1) GROUP BY 1, 2 HAVING count(*) > 1', [keys]),
  };
}

/** Wallet payments with an Idempotency-Key, by a few users of one tenant, each topped up once. */
function paymentsWorkload(): Workload {
  const users: Array<{ token: string }> = [];
  return {
    name: 'payments (POST /me/payments)',
    concurrency: 4,
    writes: true,
    setup: async (ctx) => {
      const tenant = (await (await post(ctx, '/chaos/tenants', {})).json()) as { clientId: string; clientSecret: string };
      const tokenRes = await fetch(`${ctx.base}/oauth/token`, {
        method: 'POST',
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          authorization: `Basic ${Buffer.from(`${tenant.clientId}:${tenant.clientSecret}`).toString('base64')}`,
        },
        body: 'grant_type=client_credentials',
      });
      const machine = ((await tokenRes.json()) as { access_token: string }).access_token;
      for (let i = 0; i < 4; i += 1) {
        const res = await post(
          ctx,
          '/auth/delegated-token',
          { externalUserRef: `chaos-${i}-${randomUUID()}` },
          { authorization: `Bearer ${machine}` },
        );
        const token = ((await res.json()) as { access_token: string }).access_token;
        const me = (await (await fetch(`${ctx.base}/me`, { headers: { authorization: `Bearer ${token}` } })).json()) as { id: string };
        const topUp = await post(
          ctx,
          `/users/${me.id}/top-ups`,
          { amount: 1_000_000_000, reference: 'chaos' },
          { authorization: `Bearer ${machine}` },
        );
        if (topUp.status !== 201) throw new Error(`top-up answered ${topUp.status}`);
        users.push({ token });
      }
    },
    send: (ctx) => {
      const key = `chaos-pay-${randomUUID()}`;
      return write(ctx, {
        path: '/me/payments',
        body: { amount: 1 + random(500), reference: key },
        headers: { authorization: `Bearer ${users[random(users.length)]!.token}`, 'Idempotency-Key': key },
        key,
      });
    },
    lost: (ctx, ids) => missing(ctx, 'ledger_transactions', ids),
    inconsistencies: async (ctx) => {
      // The ledger's invariants (as test/support/ledger-balance.ts checks them), over every account.
      const checks: Array<[string, string]> = [
        [
          'accounts whose balance is not the sum of their entries',
          `SELECT a.id FROM ledger_accounts a LEFT JOIN ledger_entries e ON e.account_id = a.id GROUP BY a.id, a.balance HAVING a.balance <> COALESCE(SUM(e.amount), 0)`,
        ],
        [
          'transactions without two entries summing to zero',
          `SELECT t.id FROM ledger_transactions t LEFT JOIN ledger_entries e ON e.transaction_id = t.id GROUP BY t.id HAVING COUNT(e.account_id) <> 2 OR COALESCE(SUM(e.amount), 0) <> 0`,
        ],
        ['user accounts below zero', `SELECT id FROM ledger_accounts WHERE kind <> 'FUNDING' AND balance < 0`],
      ];
      const out: string[] = [];
      for (const [what, sql] of checks) {
        const n = await count(ctx, sql);
        if (n > 0) out.push(`${n} ${what}`);
      }
      return out;
    },
    appliedTwice: (ctx, keys) =>
      count(
        ctx,
        'SELECT tenant_id, idempotency_scope, idempotency_key FROM ledger_transactions WHERE idempotency_key = ANY($1) GROUP BY 1, 2, 3 HAVING count(*) > 1',
        [keys],
      ),
  };
}

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
      const res = await fetch(`${ctx.base}/api/v1/agent/account`, {
        headers: { 'X-API-KEY': ctx.apiKey },
        signal: AbortSignal.timeout(15_000),
      });
      if (res.status < 300) {
        await res.arrayBuffer();
        return { status: res.status };
      }
      const body = (await res.json().catch(() => ({}))) as { reason?: string };
      return { status: res.status, error: body.reason ?? 'error' };
    },
    lost: async () => 0,
  },
  ordersWorkload(),
  paymentsWorkload(),
];

interface Record_ {
  readonly workload: string;
  readonly sentAt: number;
  readonly doneAt: number;
  readonly outcome: Outcome;
}

/** Runs every workload's loops until `stop()`; keeps every request's outcome. */
function startLoad(ctx: Ctx, workloads: readonly Workload[] = WORKLOADS): { records: Record_[]; stop: () => Promise<void> } {
  const records: Record_[] = [];
  let running = true;
  const loops: Promise<void>[] = [];
  for (const w of workloads) {
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
            records.push({ workload: w.name, sentAt: outcome.sentAt ?? sentAt, doneAt: Date.now(), outcome });
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
    env: {
      ...process.env,
      LOG_LEVEL: 'warn',
      SEED_DEMO: 'off',
      RATE_LIMITS: 'off',
      CHAOS_ROUTES: 'on',
      HOST: '127.0.0.1',
      SHUTDOWN_TIMEOUT_SECONDS: '10',
      ...env,
    },
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
  /** Requests sent again with their Idempotency-Key after the scenario. */
  retried: number | '-';
  /** Keys that recorded two writes, or retries of an acknowledged write answered otherwise. */
  appliedTwice: number | '-';
  consistent: string;
  note: string;
}

const isAck = (o: Outcome): boolean => o.status !== null && o.status >= 200 && o.status < 300;

/**
 * Sends again, with the same Idempotency-Key and body, the unacknowledged writes (those in flight
 * at the fault first; at most 200) and the last 20 acknowledged ones. An acknowledged write must
 * never be answered with another id; an unacknowledged one may apply now (its new id is then
 * checked like any acknowledged write). A claim ends with the connection of the instance that
 * held it, so a retry runs at once and finds the write, if there is one, through the key stored
 * with it.
 */
async function resendAfter(ctx: Ctx, mine: readonly Record_[], faultAt: number) {
  const writes = mine.filter((r) => r.outcome.resend !== undefined);
  const inFlight = (r: Record_) => r.sentAt < faultAt && r.doneAt >= faultAt;
  const unacked = writes
    .filter((r) => !isAck(r.outcome))
    .sort((a, b) => Number(inFlight(b)) - Number(inFlight(a)))
    .slice(0, 200);
  const acked = writes.filter((r) => isAck(r.outcome)).slice(-20);
  const queue = [...unacked, ...acked];
  const answers = new Map<string, number>();
  const newIds: string[] = [];
  let wrong = 0;
  await Promise.all(
    Array.from({ length: 8 }, async () => {
      for (let r = queue.shift(); r !== undefined; r = queue.shift()) {
        const o = await write(ctx, r.outcome.resend!);
        const was = isAck(r.outcome) ? 'acknowledged' : 'unacknowledged';
        const got =
          o.status === null
            ? (o.error ?? 'error')
            : o.status === 201
              ? o.id === r.outcome.id
                ? '201 same id'
                : '201'
              : `${o.status} ${o.error ?? ''}`.trim();
        answers.set(`${was}→${got}`, (answers.get(`${was}→${got}`) ?? 0) + 1);
        if (isAck(r.outcome)) {
          if (o.status === 201 && o.id !== r.outcome.id) wrong += 1;
        } else if (o.id !== undefined) newIds.push(o.id);
      }
    }),
  );
  return {
    retried: unacked.length + acked.length,
    wrong,
    newIds,
    keys: writes.map((r) => r.outcome.resend!.key),
    answers: [...answers].map(([k, n]) => `${k}×${n}`).join(' ') || 'none',
  };
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
  workloads: readonly Workload[] = WORKLOADS,
): Promise<Row[]> {
  const rows: Row[] = [];
  for (const w of workloads) {
    const mine = records.filter((r) => r.workload === w.name);
    const acked = mine.filter((r) => r.outcome.status !== null && r.outcome.status >= 200 && r.outcome.status < 300);
    const firstAfter = acked.filter((r) => r.sentAt >= recoverFrom).sort((a, b) => a.doneAt - b.doneAt)[0];
    const inFlight = mine.filter((r) => r.sentAt < faultAt && r.doneAt >= faultAt);
    const resent = w.appliedTwice ? await resendAfter(ctx, mine, faultAt) : null;
    const ackedIds = [...acked.map((r) => r.outcome.id).filter((id): id is string => id !== undefined), ...(resent?.newIds ?? [])];
    const problems = w.inconsistencies ? await w.inconsistencies(ctx) : null;
    rows.push({
      scenario,
      workload: w.name,
      sent: mine.length,
      acknowledged: acked.length,
      failed: mine.length - acked.length,
      droppedInFlight: inFlight.filter((r) => r.outcome.status === null).length,
      lost: w.writes ? await w.lost(ctx, ackedIds) : '-',
      recoveryMs: firstAfter ? firstAfter.doneAt - faultAt : null,
      retried: resent?.retried ?? '-',
      appliedTwice: resent ? resent.wrong + (await w.appliedTwice!(ctx, resent.keys)) : '-',
      consistent: problems === null ? '-' : problems.length === 0 ? 'yes' : problems.join('; '),
      note: `${note(w)}${resent ? `; retry answers: ${resent.answers}` : ''}`,
    });
  }
  return rows;
}

const statusCounts = (records: readonly Record_[], workload: string): string => {
  const counts = new Map<string, number>();
  for (const r of records.filter((x) => x.workload === workload && !(x.outcome.status !== null && x.outcome.status < 300))) {
    // A status with the service's reason; a bare status came from elsewhere (the load balancer's own page).
    const k =
      r.outcome.status === null
        ? (r.outcome.error ?? 'error')
        : `${r.outcome.status}${r.outcome.error && r.outcome.error !== 'error' ? ` ${r.outcome.error}` : ''}`;
    counts.set(k, (counts.get(k) ?? 0) + 1);
  }
  return [...counts].map(([k, n]) => `${k}×${n}`).join(' ') || 'none';
};

async function waitUntil(check: () => boolean, ms: number): Promise<void> {
  const started = Date.now();
  while (!check() && Date.now() - started < ms) await sleep(20);
}

const recovered = (records: readonly Record_[], faultAt: number, workloads: readonly Workload[] = WORKLOADS): boolean =>
  workloads.every((w) =>
    records.some((r) => r.workload === w.name && r.sentAt >= faultAt && r.outcome.status !== null && r.outcome.status < 300),
  );

/** What the load-balancer scenario found beyond the rows: retries, budget, revocation. */
const lbSummary: string[] = [];

const LB_INSTANCES = Number(process.env.CHAOS_LB_INSTANCES ?? 3);
/** The public limiter's budget in the load-balancer scenario (per client address, per minute). */
const LB_PUBLIC_LIMIT = 300;

async function redisReachable(url: string): Promise<boolean> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const s = net.connect({ host: hostname, port: Number(port || 6379) });
    s.setTimeout(1000);
    s.once('connect', () => {
      s.destroy();
      resolve(true);
    });
    s.once('error', () => resolve(false));
    s.once('timeout', () => {
      s.destroy();
      resolve(false);
    });
  });
}

/**
 * N compiled instances behind HAProxy, sharing the database and Redis. Set-up goes through a
 * chaos server of its own (the compiled instances have no test routes); the load (account reads,
 * bus orders, payments) goes through HAProxy. One instance gets SIGKILL, another SIGTERM a
 * second later; both are started again, as an orchestrator would. Then: one rate-limit budget
 * for all instances, and how long until every instance refuses a key revoked in the database.
 */
async function loadBalancerScenario(ctx: Ctx, url: string): Promise<{ rows: Row[]; summary: string[] }> {
  const redisUrl = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
  if (!(await redisReachable(redisUrl))) return { rows: [], summary: [`skipped: no Redis at ${redisUrl}`] };
  const sidePort = await freePort();
  const side = await startServer({ DATABASE_URL: url, PORT: String(sidePort) });
  const lb = await startLbCluster({
    count: LB_INSTANCES,
    databaseUrl: url,
    redisUrl,
    env: {
      RATE_LIMITS: 'on',
      RATE_LIMIT_PUBLIC: `${LB_PUBLIC_LIMIT}/60`,
      RATE_LIMIT_BOOKING: '1000000/60',
      RATE_LIMIT_PAYMENTS: '1000000/60',
      RATE_LIMIT_TOKEN: '100000/60',
      RATE_LIMIT_DELEGATED: '100000/60',
    },
  });
  const summary: string[] = [];
  try {
    const workloads = WORKLOADS.filter((w) => !w.name.startsWith('agent writes'));
    ctx.base = `http://127.0.0.1:${sidePort}`;
    for (const w of workloads) await w.setup(ctx);
    const revokedAgent = (await (await post(ctx, '/chaos/agents', { channelCode: ctx.channelCode, name: 'revoked' })).json()) as {
      id: string;
    };
    const revokedKey = (await (await post(ctx, '/chaos/keys', { agentId: revokedAgent.id })).json()) as { id: string; apiKey: string };
    ctx.base = lb.url;

    // One budget: 3× the public limit from one client, spread by HAProxy over every instance.
    const statuses: number[] = [];
    const queue = Array.from({ length: LB_PUBLIC_LIMIT * 3 }, (_, i) => i);
    await Promise.all(
      Array.from({ length: 20 }, async () => {
        while (queue.shift() !== undefined) {
          const res = await fetch(`${lb.url}/api/v1/express-bus/cities?q=ba`);
          await res.arrayBuffer();
          statuses.push(res.status);
        }
      }),
    );
    const admitted = statuses.filter((s) => s === 200).length;
    // Each instance may admit up to its local allowance before Redis has its count (docs/scaling.md).
    const bound = LB_PUBLIC_LIMIT + LB_INSTANCES * localAllowance(LB_PUBLIC_LIMIT);
    // A store call that failed lets its request through (fail open): say how often that happened.
    const storeFailures = lb.instances.reduce((n, i) => n + (i.output().match(/rate-limit store failed/g)?.length ?? 0), 0);
    summary.push(
      `one rate-limit budget across ${LB_INSTANCES} instances: ${statuses.length} public requests from one client, ${admitted} admitted (limit ${LB_PUBLIC_LIMIT}), ` +
        `${statuses.filter((s) => s === 429).length} refused with 429 — ` +
        `${admitted < LB_PUBLIC_LIMIT ? 'UNDER the limit' : admitted <= bound ? `within the stated bound (${bound})` : `OVER the stated bound (${bound})`}; ` +
        `store failures logged (each let a request through): ${storeFailures}`,
    );

    const before = await lb.stats();
    const load = startLoad(ctx, workloads);
    await sleep(LOAD_MS);
    const [killed, stopped] = [lb.instances[0]!, lb.instances[1]!];
    const faultAt = Date.now();
    killed.child.kill('SIGKILL');
    await sleep(1000);
    const termAt = Date.now();
    stopped.child.kill('SIGTERM');
    const [, termCode] = await Promise.all([killed.exited, stopped.exited]);
    const termExitMs = Date.now() - termAt;
    // An orchestrator starts them again; full capacity is back when HAProxy sees every instance UP.
    const restartFrom = Date.now();
    await Promise.all([lb.restart(killed), lb.restart(stopped)]);
    const restartedAt = Date.now();
    let allUpAt: number | null = null;
    while (Date.now() - restartedAt < GIVE_UP_MS) {
      const servers = (await lb.stats()).filter((s) => s.name !== 'BACKEND' && s.name !== 'FRONTEND');
      if (servers.every((s) => s.status === 'UP')) {
        allUpAt = Date.now();
        break;
      }
      await sleep(100);
    }
    await sleep(AFTER_RECOVERY_MS);
    await load.stop();
    const after = await lb.stats();
    const backend = (list: LbStat[]) => list.find((s) => s.name === 'BACKEND') ?? { retries: 0, redispatches: 0, responseErrors: 0 };
    const retries = backend(after).retries - backend(before).retries;
    const redispatches = backend(after).redispatches - backend(before).redispatches;
    summary.push(
      `faults: SIGKILL to ${killed.name}, SIGTERM to ${stopped.name} 1 s later (exit code ${String(termCode)} after ${termExitMs} ms); ` +
        `both started again, listening after ${restartedAt - restartFrom} ms; every instance UP in HAProxy ${allUpAt === null ? 'not within 20 s' : `${allUpAt - faultAt} ms after the SIGKILL`}`,
    );
    summary.push(`HAProxy retried ${retries} requests on the backend (${redispatches} sent to another instance)`);
    const rows = await summarise(
      `${LB_INSTANCES} instances behind HAProxy: SIGKILL one, SIGTERM another`,
      ctx,
      load.records,
      faultAt,
      (w) => `failures seen by clients: ${statusCounts(load.records, w.name)}`,
      faultAt,
      workloads,
    );

    // Revocation: warm the key on every instance, expire it in the database, time every refusal.
    const asInstance = (i: Instance) =>
      fetch(`${i.url}/api/v1/agent/account`, { headers: { 'X-API-KEY': revokedKey.apiKey } }).then((r) => r.status);
    for (const i of lb.instances) if ((await asInstance(i)) !== 200) throw new Error(`${i.name} does not accept the fresh key`);
    const revokedAt = Date.now();
    await ctx.db.query(`UPDATE api_keys SET expires_at = now() - interval '1 second' WHERE id = $1`, [revokedKey.id]);
    const refusedAfter = await Promise.all(
      lb.instances.map(async (i) => {
        while (Date.now() - revokedAt < 5000) {
          if ((await asInstance(i)) === 401) return Date.now() - revokedAt;
          await sleep(10);
        }
        return null;
      }),
    );
    const slowest = refusedAfter.some((ms) => ms === null) ? null : Math.max(...(refusedAfter as number[]));
    summary.push(
      `a key expired in the database was refused by every instance within ${slowest === null ? 'MORE THAN 5 s' : `${slowest} ms`} ` +
        `(${lb.instances.map((i, n) => `${i.name} ${refusedAfter[n] ?? '-'} ms`).join(', ')})${slowest !== null && slowest <= 1000 ? '' : ' — OVER 1 s'}`,
    );
    return { rows, summary };
  } finally {
    await lb.stop();
    side.child.kill('SIGTERM');
    await side.exited;
  }
}

/** An OTLP/HTTP collector that accepts every export and keeps only a count of them. */
async function startTraceSink(): Promise<{ url: string; exports: () => { requests: number; bytes: number }; close: () => Promise<void> }> {
  let requests = 0;
  let bytes = 0;
  const server = http.createServer((req, res) => {
    req.on('data', (c: Buffer) => (bytes += c.length));
    req.on('end', () => {
      if (req.method === 'POST' && req.url === '/v1/traces') requests += 1;
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    exports: () => ({ requests, bytes }),
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

async function main(): Promise<void> {
  // Set before any service process starts: they all inherit this process's environment.
  const sink = process.env.CHAOS_TRACING === 'on' ? await startTraceSink() : null;
  if (sink !== null) {
    process.env.OTEL_EXPORTER_OTLP_ENDPOINT = sink.url;
    process.env.OTEL_BSP_SCHEDULE_DELAY = '500';
    process.stdout.write(`chaos: tracing on, spans exported to ${sink.url} (counted, then dropped)\n`);
  }
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

    // CHAOS_ONLY=lb runs the load-balancer scenario alone.
    if (process.env.CHAOS_ONLY !== 'lb') {
      // 1 and 2. SIGTERM, then kill -9, under load; each time a new process takes the same port
      // (as an orchestrator would).
      for (const [scenario, signal] of [
        ['SIGTERM under load', 'SIGTERM'],
        ['kill -9 under load', 'SIGKILL'],
      ] as const) {
        const load = startLoad(ctx);
        await sleep(LOAD_MS);
        const faultAt = Date.now();
        server.child.kill(signal);
        const code = await server.exited;
        const exitedAt = Date.now();
        server = await startServer(env);
        const startMs = Date.now() - exitedAt;
        await waitUntil(() => recovered(load.records, exitedAt), GIVE_UP_MS);
        await sleep(AFTER_RECOVERY_MS);
        await load.stop();
        const exit = signal === 'SIGTERM' ? `exit code ${String(code)} ${exitedAt - faultAt} ms after SIGTERM; ` : '';
        rows.push(
          ...(await summarise(
            scenario,
            ctx,
            load.records,
            faultAt,
            (w) => `${exit}new process up in ${startMs} ms; failures: ${statusCounts(load.records, w.name)}`,
            exitedAt,
          )),
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
        rows.push(
          ...(await summarise(
            'PostgreSQL restart under load',
            ctx,
            load.records,
            faultAt,
            (w) => `server down ${restartMs} ms; failures: ${statusCounts(load.records, w.name)}`,
          )),
        );
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
        await waitUntil(
          () =>
            WORKLOADS.every((w) =>
              load.records.some((r) => r.workload === w.name && r.sentAt >= releasedAt && r.outcome.status === (w.writes ? 201 : 200)),
            ),
          GIVE_UP_MS,
        );
        await sleep(AFTER_RECOVERY_MS);
        await load.stop();
        const slowest503 = Math.max(0, ...load.records.filter((r) => r.outcome.status === 503).map((r) => r.doneAt - r.sentAt));
        // Recovery here is counted from the release of the lock.
        rows.push(
          ...(
            await summarise(
              'pool exhaustion (2 connections, table locked 2 s)',
              ctx,
              load.records,
              faultAt,
              (w) =>
                `slowest 503: ${slowest503} ms; recovery counted from the lock's release; failures: ${statusCounts(load.records, w.name)}`,
            )
          ).map((r) => ({ ...r, recoveryMs: firstAckAfter(load.records, r.workload, releasedAt) })),
        );
      }
    }
    server.child.kill('SIGTERM');
    await server.exited;

    // 5. Several instances behind HAProxy: SIGKILL one and SIGTERM another under mixed load.
    if (process.env.CHAOS_LB !== 'off') {
      const lb = await loadBalancerScenario(ctx, url);
      rows.push(...lb.rows);
      lbSummary.push(...lb.summary);
    }
    await ctx.db.end().catch(() => undefined);
  } finally {
    await cluster.destroy();
  }
  print(rows);
  if (lbSummary.length > 0) process.stdout.write(`\n### load balancer\n\n${lbSummary.map((l) => `- ${l}`).join('\n')}\n`);
  const lost = rows.reduce((n, r) => n + (r.lost === '-' ? 0 : r.lost), 0);
  const droppedOnSigterm = rows.filter((r) => r.scenario.startsWith('SIGTERM')).reduce((n, r) => n + r.droppedInFlight, 0);
  const twice = rows.reduce((n, r) => n + (r.appliedTwice === '-' ? 0 : r.appliedTwice), 0);
  const inconsistent = rows.filter((r) => r.consistent !== 'yes' && r.consistent !== '-').length;
  process.stdout.write(
    `\nlost acknowledged writes: ${lost}; in-flight requests dropped on SIGTERM: ${droppedOnSigterm}; applied twice: ${twice}; inconsistent: ${inconsistent}\n`,
  );
  const lbFailed = lbSummary.some((l) => /OVER|UNDER|MORE THAN|not within/.test(l));
  let untraced = false;
  if (sink !== null) {
    const { requests, bytes } = sink.exports();
    await sink.close();
    untraced = requests === 0;
    process.stdout.write(
      `traces: ${requests} OTLP exports received (${Math.round(bytes / 1024)} KiB)${untraced ? ': NONE, tracing was not on' : ''}\n`,
    );
  }
  process.exitCode = lost === 0 && droppedOnSigterm === 0 && twice === 0 && inconsistent === 0 && !lbFailed && !untraced ? 0 : 1;
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
    process.stdout.write(
      `\n### ${s}\n\n| workload | sent | acknowledged | failed | in-flight dropped | lost acknowledged writes | recovery (ms) | retried with same key | applied twice | consistent | notes |\n|---|---:|---:|---:|---:|---:|---:|---:|---:|---|---|\n`,
    );
    for (const r of rows.filter((x) => x.scenario === s)) {
      process.stdout.write(
        `| ${r.workload} | ${r.sent} | ${r.acknowledged} | ${r.failed} | ${r.droppedInFlight} | ${r.lost} | ${r.recoveryMs ?? 'not recovered'} | ${r.retried} | ${r.appliedTwice} | ${r.consistent} | ${r.note} |\n`,
      );
    }
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`chaos failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exitCode = 1;
});
