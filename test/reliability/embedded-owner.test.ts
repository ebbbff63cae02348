import { expect } from 'chai';
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmod, chown, lstat, mkdir, mkdtemp, readdir, realpath, rm, stat } from 'node:fs/promises';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { freePort } from '../../scripts/private-postgres.js';
import { adminProcessWith } from '../support/cli.js';
import { spawnServer, type ServerProcess } from '../support/reliability.js';

const ENTRY = 'src/bootstrap/main.ts';
const run = promisify(execFile);

/** Every entry under `folder` (links not followed), with its mode. */
async function tree(folder: string): Promise<{ path: string; mode: number; link: boolean }[]> {
  const names = await readdir(folder, { recursive: true });
  return Promise.all(
    names.map(async (name) => {
      const info = await lstat(join(folder, name));
      return { path: name, mode: info.mode & 0o777, link: info.isSymbolicLink() };
    }),
  );
}

/**
 * What any local user could do before: bind the abstract socket the service used as its lock
 * (no permissions exist on abstract names) and answer as if it were the service.
 */
async function squatOldLockName(folder: string): Promise<net.Server | null> {
  if (process.platform !== 'linux') return null;
  const name = `\0pbw-pglite-${createHash('sha256').update(folder).digest('hex').slice(0, 32)}`;
  const squatter = net.createServer((socket) => socket.end(JSON.stringify({ pid: 1, role: 'server' })));
  await new Promise<void>((ok, fail) => {
    squatter.once('error', fail);
    squatter.listen(name, () => ok());
  });
  return squatter;
}

/**
 * The embedded database folder as an operator uses it: the service and the admin command as
 * separate processes on one folder (a fresh one for this suite).
 */
describe('embedded database folder: one owner, admin commands through it, crash recovery', function () {
  this.timeout(400_000);
  let folder: string;
  let env: Record<string, string | undefined>;
  let server: ServerProcess | null = null;
  let squatter: net.Server | null = null;
  let apiKey: string;

  const start = async (): Promise<ServerProcess> => (server = await spawnServer(ENTRY, env, await freePort(), 180_000));
  const call = (path: string, init: RequestInit = {}): Promise<Response> => fetch(`${server!.url}${path}`, init);
  const asAgent = (init: RequestInit = {}): RequestInit => ({
    ...init,
    headers: { ...(init.headers as Record<string, string>), 'X-API-KEY': apiKey },
  });
  const admin = (...args: string[]) => adminProcessWith(env, ...args);
  /** Runs a service on `dataDir` that is expected to refuse to start: its exit code and stderr. */
  const startRefused = async (dataDir: string): Promise<{ code: number; stderr: string }> => {
    const childEnv: NodeJS.ProcessEnv = {
      ...process.env,
      ...env,
      PGLITE_DIR: dataDir,
      PORT: String(await freePort()),
      HOST: '127.0.0.1',
      LOG_LEVEL: 'warn',
      SEED_DEMO: 'off',
    };
    delete childEnv.DATABASE_URL;
    return run(process.execPath, ['--import', 'tsx', ENTRY], { env: childEnv, timeout: 120_000 }).then(
      () => ({ code: 0, stderr: '' }),
      (err: { code: number; stderr: string }) => ({ code: err.code, stderr: err.stderr }),
    );
  };
  let ordersPlaced = 0;
  const order = async (): Promise<string> => {
    const post = (path: string, body: unknown) =>
      call(path, asAgent({ method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }));
    // Each order a pickup hour of its own: the demo fleet has 4 sedans an hour.
    ordersPlaced += 1;
    const pickupAt = new Date(Date.now() + 2 * 86_400_000 + ordersPlaced * 3_600_000).toISOString();
    const quote = await post('/api/v1/airport-transfer/quotes', {
      fromLocationId: 'loc_bkk',
      toLocationId: 'loc_bkk_silom',
      pickupAt,
      passengers: 1,
    });
    expect(quote.status).to.equal(201);
    const { id: quoteId } = (await quote.json()) as { id: string };
    const placed = await post('/api/v1/orders', {
      quoteId,
      contact: { name: 'Malee S.', email: 'malee@example.com', phone: '+66 81 234 5678' },
    });
    expect(placed.status).to.equal(201);
    return ((await placed.json()) as { id: string }).id;
  };

  before(async () => {
    // A folder that already exists, open to everyone, whose old lock name another user has taken.
    folder = await realpath(await mkdtemp(join(tmpdir(), 'pbw-embedded-')));
    await chmod(folder, 0o777);
    squatter = await squatOldLockName(folder);
    env = { DATABASE_URL: undefined, PERSISTENCE: 'pglite', PGLITE_DIR: folder };
    await start();
  });
  after(async () => {
    if (server !== null && server.child.exitCode === null && server.child.signalCode === null) {
      server.child.kill('SIGTERM');
      await server.exited();
    }
    if (squatter !== null) await new Promise((ok) => squatter!.close(ok));
    await rm(folder, { recursive: true, force: true });
  });

  it('when the folder existed open to everyone and another user took the old lock name, then the service started, made the folder 0700 and created no file others can reach', async () => {
    expect((await call('/healthz')).status).to.equal(200);
    if (squatter !== null) expect(squatter.listening).to.equal(true);
    expect((await stat(folder)).mode & 0o777).to.equal(0o700);
    const entries = await tree(folder);
    // PGlite created the whole database at this start.
    expect(entries.filter((e) => !e.link).length).to.be.above(100);
    expect(entries.filter((e) => !e.link && (e.mode & 0o077) !== 0)).to.deep.equal([]);
  });

  it('when admin commands run while the service holds the folder, then the service runs them and their effect is visible at once', async () => {
    const seeded = await admin('demo', 'seed', '--json');
    expect(seeded.code, seeded.stderr).to.equal(0);
    const demo = JSON.parse(seeded.stdout) as { apiKey: string; agentId: string; issued: boolean };
    expect(demo.issued).to.equal(true);
    apiKey = demo.apiKey;
    expect((await call('/api/v1/agent/account', asAgent())).status).to.equal(200);

    const issued = await admin('key', 'issue', '--agent', demo.agentId, '--json');
    const second = JSON.parse(issued.stdout) as { keyId: string; apiKey: string };
    const account = (key: string) => call('/api/v1/agent/account', { headers: { 'X-API-KEY': key } });
    expect((await account(second.apiKey)).status).to.equal(200);
    // Cached by the service, then changed by the admin command: the next request sees it.
    expect((await admin('agent', 'suspend', '--agent', demo.agentId, '--json')).code).to.equal(0);
    expect((await account(second.apiKey)).status).to.equal(403);
    expect((await admin('agent', 'activate', '--agent', demo.agentId, '--json')).code).to.equal(0);
    expect((await account(second.apiKey)).status).to.equal(200);
    expect((await admin('key', 'revoke', '--key', second.keyId, '--json')).code).to.equal(0);
    expect((await account(second.apiKey)).status).to.equal(401);

    // A refused command reports its reason the same way as when it runs on its own.
    const refused = await admin('key', 'revoke', '--key', 'key_nothing', '--json');
    expect(refused.code).to.equal(1);
    expect(JSON.parse(refused.stderr)).to.have.nested.property('error.reason', 'key-not-found');
  });

  it('when a second service starts on the same folder, then it exits non-zero naming the folder and the holder, and the first keeps serving', async () => {
    const holder = server!.child.pid!;
    const second = await startRefused(folder);
    expect(second.code).to.not.equal(0);
    expect(second.stderr).to.include(
      `the embedded database folder ${folder} is held by another process of this service (pid ${holder}, a running service)`,
    );
    expect((await call('/healthz')).status).to.equal(200);
    expect(await order()).to.match(/^ord_/);
  });

  it('when the service is killed with SIGKILL after acknowledging orders, then the folder is free at once and a restart has every order', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 6; i += 1) ids.push(await order());
    server!.child.kill('SIGKILL');
    await server!.exited();
    // Left open to others by hand meanwhile: the next holder makes it private again.
    await chmod(folder, 0o755);
    await chmod(join(folder, 'PG_VERSION'), 0o666);
    // No stale lock: an admin command opens the folder itself now, and changes nothing.
    const direct = await admin('demo', 'seed', '--json');
    expect(direct.code, direct.stderr).to.equal(0);
    expect(JSON.parse(direct.stdout)).to.include({ created: false, issued: false });

    expect((await stat(folder)).mode & 0o777).to.equal(0o700);
    expect((await stat(join(folder, 'PG_VERSION'))).mode & 0o777).to.equal(0o600);

    await start();
    for (const id of ids) {
      const res = await call(`/api/v1/orders/${id}`, asAgent());
      expect(res.status, id).to.equal(200);
      expect(((await res.json()) as { id: string }).id).to.equal(id);
    }
  });

  it('when the folder path is too long for a socket inside it, then the service and the admin command refuse it and say so', async () => {
    const base = await realpath(await mkdtemp(join(tmpdir(), 'pbw-long-')));
    try {
      // 100 bytes: the admin socket in it would need 111, more than a socket path can hold.
      const long = join(base, 'x'.repeat(100 - base.length - 1));
      await mkdir(long);
      const expected = `the embedded database folder path ${long} is 100 bytes long`;
      const started = await startRefused(long);
      expect(started.code).to.not.equal(0);
      expect(started.stderr).to.include(expected).and.include('set PGLITE_DIR to a shorter path');
      const listed = await adminProcessWith({ ...env, PGLITE_DIR: long }, 'agent', 'list');
      expect(listed.code).to.equal(1);
      expect(listed.stderr).to.include(expected);
      expect(listed.stdout).to.equal('');
      expect(await readdir(long)).to.deep.equal([]);
    } finally {
      await rm(base, { recursive: true, force: true });
    }
  });

  it('when the folder belongs to another user, then the service and the admin command refuse it', async function () {
    if (typeof process.getuid !== 'function' || process.getuid() !== 0) this.skip();
    const theirs = await realpath(await mkdtemp(join(tmpdir(), 'pbw-theirs-')));
    try {
      await chown(theirs, 65534, 65534);
      const expected = `the embedded database folder ${theirs} belongs to another user (uid 65534)`;
      const started = await startRefused(theirs);
      expect(started.code).to.not.equal(0);
      expect(started.stderr).to.include(expected);
      const listed = await adminProcessWith({ ...env, PGLITE_DIR: theirs }, 'agent', 'list');
      expect(listed.code).to.equal(1);
      expect(listed.stderr).to.include(expected);
      expect(await readdir(theirs)).to.deep.equal([]);
    } finally {
      await rm(theirs, { recursive: true, force: true });
    }
  });
});
