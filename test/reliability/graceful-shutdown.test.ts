import { expect } from 'chai';
import net from 'node:net';
import pg from 'pg';
import { databaseUrl } from '../support/database.js';
import { startTestApp, type TestApp } from '../support/app.js';
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
