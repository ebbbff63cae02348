import { expect } from 'chai';
import net from 'node:net';
import pg from 'pg';
import { databaseUrl } from '../support/database.js';
import { silentLog, startTestApp, testConfig, type TestApp } from '../support/app.js';
import { listen, openService } from '../../src/bootstrap/service.js';
import { buildAgent, eventually } from '../support/builders.js';
import { spawnServer, type ServerProcess } from '../support/reliability.js';
import { freePort } from '../../scripts/private-postgres.js';

const ENTRY = 'src/bootstrap/main.ts';

/** Opens a keep-alive connection, makes one request on it and leaves it idle. */
async function idleKeepAlive(port: number): Promise<{ closed: Promise<number> }> {
  const socket = net.connect(port, '127.0.0.1');
  await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject));
  let seen = '';
  const answered = new Promise<void>((resolve) =>
    socket.on('data', (c: Buffer) => {
      seen += c.toString();
      if (seen.includes('"ok"')) resolve();
    }),
  );
  socket.write('GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: keep-alive\r\n\r\n');
  await answered;
  const closed = new Promise<number>((resolve) => socket.once('close', () => resolve(Date.now())));
  socket.on('error', () => undefined);
  return { closed };
}

const connectRefused = (port: number): Promise<boolean> =>
  new Promise((resolve) => {
    const s = net.connect(port, '127.0.0.1');
    s.once('connect', () => {
      s.destroy();
      resolve(false);
    });
    s.once('error', (err: NodeJS.ErrnoException) => resolve(err.code === 'ECONNREFUSED'));
  });

describe('graceful shutdown of the server process (SIGTERM)', () => {
  let url: string;
  let app: TestApp;
  let server: ServerProcess | null = null;
  before(async function () {
    const u = await databaseUrl();
    // The slow request is made slow by a table lock held from a second connection: PostgreSQL only.
    if (u === null) this.skip();
    url = u;
    app = await startTestApp();
  });
  afterEach(() => {
    if (server !== null && server.child.exitCode === null) server.child.kill('SIGKILL');
    server = null;
  });
  after(async () => app?.stop());

  it('when SIGTERM arrives during a slow request, then new connections are refused, idle keep-alive sockets close, the request finishes and the process exits 0 in time', async function () {
    this.timeout(60_000);
    const agent = await buildAgent(app.service);
    const port = await freePort();
    server = await spawnServer(ENTRY, { DATABASE_URL: url, SHUTDOWN_TIMEOUT_SECONDS: '8' }, port);
    const idle = await idleKeepAlive(port);

    // Hold the key table so the server's first lookup of this key waits (a real route, made slow).
    const locker = new pg.Client({ connectionString: url, application_name: 'pbw-test-locker' });
    await locker.connect();
    await locker.query('BEGIN');
    await locker.query('LOCK TABLE api_keys IN ACCESS EXCLUSIVE MODE');
    let inflight: Promise<Response>;
    let sigterm: number;
    try {
      inflight = fetch(`${server.url}/api/v1/agent/account`, { headers: { 'X-API-KEY': agent.apiKey } });
      await eventually(
        async () =>
          (
            await locker.query(`SELECT 1 FROM pg_stat_activity WHERE datname = current_database()
             AND application_name = 'partner-booking-wallet' AND wait_event_type = 'Lock'`)
          ).rowCount! > 0,
        5000,
        'the request waits on the lock',
      );
      sigterm = Date.now();
      server.child.kill('SIGTERM');
      await eventually(() => connectRefused(port), 1000, 'new connections are refused');
      const idleClosedAt = await idle.closed;
      expect(idleClosedAt - sigterm).to.be.below(1000);
      // The request is still in flight; let it go on after a while.
      await new Promise((r) => setTimeout(r, 500));
      expect(server.child.exitCode).to.equal(null);
    } finally {
      await locker.query('ROLLBACK');
      await locker.end();
    }
    const res = await inflight;
    const answeredAt = Date.now();
    expect(res.status).to.equal(200);
    // Answered during the shutdown: the client is told the connection closes after it.
    expect(res.headers.get('connection')).to.equal('close');
    expect(((await res.json()) as { agentId: string }).agentId).to.equal(agent.agentId);
    const exit = await server.exited();
    expect(exit.code, server.output()).to.equal(0);
    expect(exit.signal).to.equal(null);
    // Exit code 0 is given only after the pool has been destroyed (every connection ended), and
    // promptly once the last request is answered (not at the keep-alive timeout).
    expect(exit.at - sigterm).to.be.below(8000);
    expect(exit.at - answeredAt).to.be.below(1000);
  });

  it('when SIGTERM arrives with a drain delay, then /readyz answers 503 at once while /healthz still answers, and the process exits 0', async function () {
    this.timeout(60_000);
    const port = await freePort();
    server = await spawnServer(ENTRY, { DATABASE_URL: url, SHUTDOWN_DRAIN_DELAY_MS: '1500', SHUTDOWN_TIMEOUT_SECONDS: '5' }, port);
    expect((await fetch(`${server.url}/readyz`)).status).to.equal(200);
    const sigterm = Date.now();
    server.child.kill('SIGTERM');
    const ready = await eventually(async () => (await fetch(`${server!.url}/readyz`)).status === 503, 1000, 'readiness fails');
    expect(ready).to.be.below(1000);
    const res = await fetch(`${server.url}/readyz`);
    expect(res.status).to.equal(503);
    expect(res.headers.get('connection')).to.equal('close');
    expect(((await res.json()) as { reason: string }).reason).to.equal('shutting-down');
    expect((await fetch(`${server.url}/healthz`)).status).to.equal(200);
    const exit = await server.exited();
    expect(exit.code).to.equal(0);
    expect(exit.at - sigterm).to.be.below(5000);
  });
});

describe('graceful shutdown of a listening service: kept-alive connections', function () {
  this.timeout(30_000);

  /** A raw keep-alive connection: write what you like, read each response as it comes. */
  function rawConnection(port: number): { write(text: string): void; next(): Promise<string>; closed: Promise<void> } {
    const socket = net.connect(port, '127.0.0.1');
    socket.on('error', () => undefined);
    let got = '';
    let waiting: (() => void) | null = null;
    socket.on('data', (c: Buffer) => {
      got += c.toString();
      waiting?.();
    });
    const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
    const complete = (): string | null => {
      const end = got.indexOf('\r\n\r\n');
      if (end < 0) return null;
      const length = Number(/content-length: (\d+)/i.exec(got.slice(0, end))?.[1] ?? 0);
      if (Buffer.byteLength(got.slice(end + 4)) < length) return null;
      const response = got.slice(0, end + 4 + length);
      got = got.slice(response.length);
      return response;
    };
    return {
      write: (text) => socket.write(text),
      next: async () => {
        for (;;) {
          const response = complete();
          if (response !== null) return response;
          await new Promise<void>((resolve) => (waiting = resolve));
        }
      },
      closed,
    };
  }

  it('when a request arrives on a kept-alive connection once the stop takes no new work, then it is refused 503 shutting-down with Connection: close and Retry-After, and one sent at the signal is answered', async () => {
    const config = testConfig({ PERSISTENCE: 'memory', PORT: '0', HOST: '127.0.0.1' });
    const running = await listen(await openService(config, silentLog), config, silentLog);
    const port = Number(new URL(running.url).port);
    const early = rawConnection(port);
    const late = rawConnection(port);
    for (const conn of [early, late]) {
      conn.write('GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n');
      expect(await conn.next())
        .to.match(/^HTTP\/1\.1 200/)
        .and.match(/connection: keep-alive/i);
    }
    const stopped = running.stop();
    // Sent as the stop begins: it may have left the client before the signal, and is answered.
    early.write('GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n');
    // Begun at once but completed only after the grace: the stop no longer takes it.
    late.write('GET /api/v1/agent/account HTTP/1.1\r\nHost: x\r\n');
    for (let i = 0; i < 6; i += 1) {
      await new Promise((r) => setTimeout(r, 100));
      late.write(`X-Part-${i}: ${i}\r\n`);
    }
    late.write('\r\n');
    const answered = await early.next();
    expect(answered)
      .to.match(/^HTTP\/1\.1 200/)
      .and.match(/connection: close/i);
    const refused = await late.next();
    expect(refused).to.match(/^HTTP\/1\.1 503/);
    expect(refused)
      .to.match(/connection: close/i)
      .and.match(/retry-after: 1/i)
      .and.match(/content-type: application\/problem\+json/i);
    expect(JSON.parse(refused.slice(refused.indexOf('\r\n\r\n') + 4))).to.include({ status: 503, reason: 'shutting-down' });
    // Each connection closes after its answer, and the stop completes.
    await Promise.all([early.closed, late.closed]);
    await stopped;
  });
});
