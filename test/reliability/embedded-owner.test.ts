import { expect } from 'chai';
import { execFile } from 'node:child_process';
import { mkdtemp, realpath, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { freePort } from '../../scripts/private-postgres.js';
import { adminProcessWith } from '../support/cli.js';
import { spawnServer, type ServerProcess } from '../support/reliability.js';

const ENTRY = 'src/bootstrap/main.ts';
const run = promisify(execFile);

/**
 * The embedded database folder as an operator uses it: the service and the admin command as
 * separate processes on one folder (a fresh one for this suite).
 */
describe('embedded database folder: one owner, admin commands through it, crash recovery', function () {
  this.timeout(400_000);
  let folder: string;
  let env: Record<string, string | undefined>;
  let server: ServerProcess | null = null;
  let apiKey: string;

  const start = async (): Promise<ServerProcess> => (server = await spawnServer(ENTRY, env, await freePort(), 180_000));
  const call = (path: string, init: RequestInit = {}): Promise<Response> => fetch(`${server!.url}${path}`, init);
  const asAgent = (init: RequestInit = {}): RequestInit => ({
    ...init,
    headers: { ...(init.headers as Record<string, string>), 'X-API-KEY': apiKey },
  });
  const admin = (...args: string[]) => adminProcessWith(env, ...args);
  const order = async (): Promise<string> => {
    const post = (path: string, body: unknown) =>
      call(path, asAgent({ method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }));
    const pickupAt = new Date(Date.now() + 2 * 86_400_000).toISOString();
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
    folder = await realpath(await mkdtemp(join(tmpdir(), 'pbw-embedded-')));
    env = { DATABASE_URL: undefined, PERSISTENCE: 'pglite', PGLITE_DIR: folder };
    await start();
  });
  after(async () => {
    if (server !== null && server.child.exitCode === null && server.child.signalCode === null) {
      server.child.kill('SIGTERM');
      await server.exited();
    }
    await rm(folder, { recursive: true, force: true });
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
    const port = await freePort();
    const childEnv: NodeJS.ProcessEnv = {
      ...process.env,
      ...env,
      PORT: String(port),
      HOST: '127.0.0.1',
      LOG_LEVEL: 'warn',
      SEED_DEMO: 'off',
    };
    delete childEnv.DATABASE_URL;
    const second = await run(process.execPath, ['--import', 'tsx', ENTRY], { env: childEnv, timeout: 120_000 }).then(
      () => ({ code: 0, stderr: '' }),
      (err: { code: number; stderr: string }) => ({ code: err.code, stderr: err.stderr }),
    );
    expect(second.code).to.not.equal(0);
    expect(second.stderr).to.include(folder).and.include(`process ${holder}`);
    expect((await call('/healthz')).status).to.equal(200);
    expect(await order()).to.match(/^ord_/);
  });

  it('when the service is killed with SIGKILL after acknowledging orders, then the folder is free at once and a restart has every order', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 6; i += 1) ids.push(await order());
    server!.child.kill('SIGKILL');
    await server!.exited();
    // No stale lock: an admin command opens the folder itself now, and changes nothing.
    const direct = await admin('demo', 'seed', '--json');
    expect(direct.code, direct.stderr).to.equal(0);
    expect(JSON.parse(direct.stdout)).to.include({ created: false, issued: false });

    await start();
    for (const id of ids) {
      const res = await call(`/api/v1/orders/${id}`, asAgent());
      expect(res.status, id).to.equal(200);
      expect(((await res.json()) as { id: string }).id).to.equal(id);
    }
  });
});
