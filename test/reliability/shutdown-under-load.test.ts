import { expect } from 'chai';
import http from 'node:http';
import { spawn } from 'node:child_process';
import { databaseUrl } from '../support/database.js';
import { startTestApp, type TestApp } from '../support/app.js';
import { buildAgent } from '../support/builders.js';
import { spawnServer, type ServerProcess } from '../support/reliability.js';
import { freePort } from '../../scripts/private-postgres.js';

/** What one request got: an HTTP answer, or the error its client saw. */
interface Outcome {
  readonly kind: 'stream' | 'idle' | 'fresh';
  /**
   * When the request was written to its socket (flushed to the kernel; a loaded client may call
   * for a request well before it leaves), and when its answer or error came, in ms after the
   * SIGTERM (negative: before it).
   */
  sentAt: number;
  doneAt: number;
  /** Sent on a keep-alive connection that had already carried a request. */
  reused: boolean;
  status?: number;
  connection?: string | undefined;
  retryAfter?: string | undefined;
  reason?: string;
  error?: string;
}

/** One GET on `agent` (false: a connection of its own), resolved with what came back. */
function get(
  port: number,
  path: string,
  headers: Record<string, string>,
  agent: http.Agent | false,
  kind: Outcome['kind'],
): Promise<Outcome> {
  return new Promise((resolve) => {
    const outcome: Outcome = { kind, sentAt: Date.now(), doneAt: 0, reused: false };
    const fail = (err: NodeJS.ErrnoException): void =>
      resolve({ ...outcome, doneAt: Date.now(), error: err.code === undefined ? err.message : `${err.code} ${err.syscall ?? ''}`.trim() });
    const req = http.request({ host: '127.0.0.1', port, path, headers, agent }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (body += c));
      res.on('error', fail);
      res.on('end', () => {
        outcome.doneAt = Date.now();
        outcome.status = res.statusCode as number;
        outcome.connection = res.headers.connection;
        outcome.retryAfter = res.headers['retry-after'];
        if (res.statusCode !== 200) outcome.reason = (JSON.parse(body) as { reason?: string }).reason ?? body;
        resolve(outcome);
      });
    });
    req.on('socket', () => (outcome.reused = req.reusedSocket));
    req.on('finish', () => (outcome.sentAt = Date.now()));
    req.on('error', fail);
    req.end();
  });
}

const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** How long the stop leaves a quiet connection open (src/bootstrap/service.ts IDLE_GRACE_MS). */
const QUIET_CLOSE_MS = 250;

/** A request that the stop handled as the service promises; null when it did, else why not. */
function misfit(o: Outcome): string | null {
  if (o.error !== undefined) {
    // A connection made after the signal may be refused, or reset while the kernel still held
    // it (the listening socket closed before the service took it): it never reached the service.
    if (o.sentAt >= 0 && !o.reused && /^(ECONNREFUSED|ECONNRESET)/.test(o.error)) return null;
    // A kept-alive connection quiet for the stop's whole grace (250 ms) is closed: a request sent
    // on it later than that may meet the close (HTTP/1.1 has no way to warn an idle client).
    return o.sentAt >= QUIET_CLOSE_MS && o.reused && o.error.startsWith('ECONNRESET') ? null : `error ${o.error}`;
  }
  if (o.status === 200) return null;
  if (o.status === 503 && o.reason === 'shutting-down' && o.connection === 'close' && o.retryAfter !== undefined) return null;
  return `answered ${o.status} ${o.reason ?? ''} (connection: ${o.connection}, retry-after: ${o.retryAfter})`;
}

/** Stops in all, and how many servers run at once (each stops STOPS / LANES times in turn). */
const STOPS = 20;
const LANES = 2;

describe('graceful shutdown under load, repeated (SIGTERM)', () => {
  let url: string;
  let app: TestApp;
  const servers = new Set<ServerProcess>();
  before(async function () {
    this.timeout(300_000);
    const u = await databaseUrl();
    // A separate process on the test database: PostgreSQL only.
    if (u === null) this.skip();
    url = u;
    app = await startTestApp();
    // The compiled service, as `npm start` runs it (it starts in a fraction of tsx's time);
    // compiled first when dist/ is missing or older than the sources.
    await new Promise<void>((resolve, reject) => {
      const build = spawn(process.execPath, ['scripts/build-if-stale.mjs'], { stdio: ['ignore', 'ignore', 'pipe'] });
      let err = '';
      build.stderr.on('data', (c: Buffer) => (err += c.toString()));
      build.once('exit', (code) => (code === 0 ? resolve() : reject(new Error(`build failed:\n${err}`))));
    });
  });
  after(async () => {
    for (const server of servers) if (server.child.exitCode === null) server.child.kill('SIGKILL');
    await app?.stop();
  });

  /** One start, load, SIGTERM under that load, and exit; every request's outcome. */
  async function stopUnderLoad(headers: Record<string, string>): Promise<{ outcomes: Outcome[]; exit: number | null; output: string }> {
    const port = await freePort();
    const server = await spawnServer(
      'dist/bootstrap/main.js',
      { DATABASE_URL: url, RATE_LIMITS: 'off', SHUTDOWN_TIMEOUT_SECONDS: '10' },
      port,
    );
    servers.add(server);
    let exited = false;
    const exit = server.exited().then((e) => {
      exited = true;
      return e;
    });
    const outcomes: Outcome[] = [];
    const record = (o: Outcome): Outcome => {
      outcomes.push(o);
      return o;
    };
    const agents: http.Agent[] = [];
    const keepAlive = (): http.Agent => {
      const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
      agents.push(agent);
      return agent;
    };
    let answered = 0;
    // Keep-alive clients that send their next request as soon as one is answered (bounded).
    const stream = async (agent: http.Agent, path: string): Promise<void> => {
      for (let i = 0; i < 150 && !exited; i += 1) {
        const o = record(await get(port, path, headers, agent, 'stream'));
        if (o.status !== undefined) answered += 1;
        if (o.error !== undefined) return;
      }
    };
    // Clients that open a connection for each request.
    const fresh = async (): Promise<void> => {
      for (let i = 0; i < 60 && !exited; i += 1) {
        const o = record(await get(port, '/api/v1/agent/account', headers, false, 'fresh'));
        if (o.error !== undefined) return;
      }
    };
    // Keep-alive connections that carried one request and are idle when the stop begins; each
    // sends its next request at a moment around the signal, a little before it to a little after.
    const idle = async (agent: http.Agent, offsetMs: number, signalPlanned: Promise<number>): Promise<void> => {
      record(await get(port, '/healthz', {}, agent, 'idle'));
      const at = await signalPlanned;
      await pause(Math.max(0, at + offsetMs - Date.now()));
      record(await get(port, '/api/v1/agent/account', headers, agent, 'idle'));
    };
    let plan!: (at: number) => void;
    const signalPlanned = new Promise<number>((resolve) => (plan = resolve));
    const load = [
      ...Array.from({ length: 20 }, (_, i) => stream(keepAlive(), i % 4 === 0 ? '/healthz' : '/api/v1/agent/account')),
      ...Array.from({ length: 6 }, () => fresh()),
      ...Array.from({ length: 14 }, (_, i) => idle(keepAlive(), -30 + i * 10, signalPlanned)),
    ];
    // Under way: every keep-alive stream has had answers.
    const warm = Date.now();
    while (answered < 60 && Date.now() - warm < 10_000) await pause(10);
    const at = Date.now() + 40;
    plan(at);
    await pause(at - Date.now());
    const signalAt = Date.now();
    server.child.kill('SIGTERM');
    await Promise.all(load);
    for (const o of outcomes) {
      o.sentAt -= signalAt;
      o.doneAt -= signalAt;
    }
    for (const agent of agents) agent.destroy();
    const { code } = await exit;
    servers.delete(server);
    return { outcomes, exit: code, output: server.output() };
  }

  it(`when SIGTERM arrives under load ${STOPS} times, then every request sent before it is answered, and one on a kept-alive connection after it is answered or refused 503 with Connection: close`, async function () {
    this.timeout(240_000);
    const agent = await buildAgent(app.service);
    const headers = { 'X-API-KEY': agent.apiKey };
    const failures: string[] = [];
    let inFlightAtSignal = 0;
    let answeredOnKeptAliveAfterSignal = 0;
    // What came back, by kind: "before stream reused 200", "after fresh ECONNREFUSED connect", …
    const seen: Record<string, number> = {};
    const lane = async (n: number, from: number): Promise<void> => {
      for (let trial = from; trial < from + n; trial += 1) {
        const { outcomes, exit, output } = await stopUnderLoad(headers);
        if (exit !== 0) failures.push(`stop ${trial}: exit code ${exit}\n${output}`);
        for (const o of outcomes) {
          const key = `${o.sentAt < 0 ? 'before' : 'after'} ${o.kind}${o.reused ? ' reused' : ''} ${o.status ?? o.error}`;
          seen[key] = (seen[key] ?? 0) + 1;
          if (o.sentAt < 0 && o.doneAt >= 0) inFlightAtSignal += 1;
          if (o.sentAt >= 0 && o.reused && o.status === 200) answeredOnKeptAliveAfterSignal += 1;
          const why = misfit(o);
          if (why !== null)
            failures.push(
              `stop ${trial}: ${o.kind} request sent ${o.sentAt} ms after SIGTERM${o.reused ? ' on a kept-alive connection' : ''}: ${why}`,
            );
        }
      }
    };
    await Promise.all(Array.from({ length: LANES }, (_, i) => lane(STOPS / LANES, i * (STOPS / LANES))));
    const summary = JSON.stringify(seen, null, 1);
    expect(failures, `${failures.slice(0, 20).join('\n')}\n${summary}`).to.deep.equal([]);
    // The load really was under way at each signal, and kept-alive connections were used after it.
    expect(inFlightAtSignal, summary).to.be.greaterThan(STOPS * 10);
    expect(answeredOnKeptAliveAfterSignal, summary).to.be.greaterThan(0);
  });
});
