import { expect } from 'chai';
import { mkdtemp, realpath, rm } from 'node:fs/promises';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { adminProcessWith, type AdminRun } from '../support/cli.js';
import { spawnServer, type ServerProcess } from '../support/reliability.js';
import { unique } from '../support/builders.js';

/** A free port from 45000-45999, the range these tests keep to. */
async function portInRange(): Promise<number> {
  for (let port = 45_000 + Math.floor(Math.random() * 900); port < 46_000; port += 1) {
    const free = await new Promise<boolean>((resolve) => {
      const probe = net.createServer();
      probe.once('error', () => resolve(false));
      probe.listen(port, '127.0.0.1', () => probe.close(() => resolve(true)));
    });
    if (free) return port;
  }
  throw new Error('no free port in 45000-45999');
}

/**
 * The operator's commands on the embedded database while the service runs: the service holds
 * the folder, so each command is run by it (over its admin socket), and help needs neither.
 */
describe('agent admin commands on the embedded database while the service runs', function () {
  this.timeout(400_000);
  let folder: string;
  let env: Record<string, string | undefined>;
  let server: ServerProcess;
  const admin = (...args: string[]): Promise<AdminRun> => adminProcessWith(env, ...args);
  const quote = async (apiKey: string): Promise<{ id: string; channel: { code: string }; price: { amount: number } }> => {
    const res = await fetch(`${server.url}/api/v1/airport-transfer/quotes`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'X-API-KEY': apiKey },
      body: JSON.stringify({
        fromLocationId: 'loc_bkk',
        toLocationId: 'loc_bkk_silom',
        pickupAt: new Date(Date.now() + 3 * 86_400_000).toISOString(),
        passengers: 1,
      }),
    });
    expect(res.status).to.equal(201);
    return (await res.json()) as { id: string; channel: { code: string }; price: { amount: number } };
  };

  before(async () => {
    folder = await realpath(await mkdtemp(join(tmpdir(), 'pbw-cli-')));
    env = { DATABASE_URL: undefined, PERSISTENCE: 'pglite', PGLITE_DIR: folder };
    server = await spawnServer('src/bootstrap/main.ts', env, await portInRange(), 180_000);
  });
  after(async () => {
    if (server !== undefined && server.child.exitCode === null && server.child.signalCode === null) {
      server.child.kill('SIGTERM');
      await server.exited();
    }
    await rm(folder, { recursive: true, force: true });
  });

  it('when an agent is listed, moved and shown, then the service runs each command and prices its next quote with the new channel', async () => {
    const seeded = await admin('demo', 'seed', '--json');
    expect(seeded.code, seeded.stderr).to.equal(0);
    const demo = JSON.parse(seeded.stdout) as { apiKey: string; agentId: string };
    const before = await quote(demo.apiKey);
    // The demo's sedan from Suvarnabhumi to Silom: 1 200.00 THB + 10 % channel markup − 5 % agent discount.
    expect(before.price.amount).to.equal(125_400);

    const code = `EMB-${unique()}`;
    const [created, help] = await Promise.all([
      admin('channel', 'create', '--code', code, '--name', 'Embedded', '--currency', 'THB', '--markup-bps', '3000', '--json'),
      admin('agent', 'set-channel', '-h'),
    ]);
    expect(created.code, created.stderr).to.equal(0);
    expect(help.code, help.stderr).to.equal(0);
    expect(help.stdout).to.match(/^usage: npm run --silent admin -- agent set-channel --agent ID --channel C/);

    const moved = await admin('agent', 'set-channel', '--agent', demo.agentId, '--channel', code, '--json');
    expect(moved.code, moved.stderr).to.equal(0);
    expect(JSON.parse(moved.stdout)).to.deep.equal({ agentId: demo.agentId, channel: code, previousChannel: 'DEMO-B2B' });
    // Run by the service itself: its next request sees the move at once.
    const after = await quote(demo.apiKey);
    expect(after.channel.code).to.equal(code);
    // 1 200.00 THB + 30 % − 5 %.
    expect(after.price.amount).to.equal(148_200);

    const [listed, shown] = await Promise.all([
      admin('agent', 'list', '--channel', code),
      admin('agent', 'show', '--agent', demo.agentId, '--json'),
    ]);
    expect(listed.code, listed.stderr).to.equal(0);
    const [head, ...rows] = listed.stdout.trimEnd().split('\n');
    expect(head).to.match(/^AGENT ID +STATUS +CHANNEL +DISCOUNT BPS +ENTITLEMENTS +LIVEMODE +CREATED AT +NAME$/);
    expect(rows).to.have.length(1);
    expect(rows[0]).to.match(
      new RegExp(`^${demo.agentId} +ACTIVE +${code} +500 +airport-transfer,express-bus +true +\\S+Z +Demo Travel Agency$`),
    );
    expect(JSON.parse(shown.stdout)).to.include({ agentId: demo.agentId, channel: code, markupBps: 3000, usableKeys: 1 });
  });

  it("when a client on the admin socket cannot prove it knows the folder's admin token, then the service runs nothing", async () => {
    const code = `FORGED-${unique()}`;
    const peer = net.connect(join(folder, 'admin.sock'));
    peer.setEncoding('utf8');
    let received = '';
    const line = (n: number): Promise<string> =>
      new Promise((ok, fail) => {
        const check = (): void => {
          const lines = received.split('\n');
          if (lines.length > n) ok(lines[n - 1]!);
        };
        peer.on('data', (chunk: string) => {
          received += chunk;
          check();
        });
        peer.once('error', fail);
        check();
      });
    try {
      peer.write(`${JSON.stringify({ nonce: 'a'.repeat(64) })}\n`);
      const hello = JSON.parse(await line(1)) as { nonce: string; proof: string };
      expect(hello.nonce).to.match(/^[0-9a-f]{64}$/);
      const argv = ['channel', 'create', '--code', code, '--name', 'Forged', '--currency', 'THB', '--json'];
      peer.write(`${JSON.stringify({ proof: hello.proof, argv })}\n`);
      const reply = JSON.parse(await line(2)) as { exitCode: number; stderr: string };
      expect(reply.exitCode).to.equal(1);
      expect(reply.stderr).to.include("did not prove it can read the folder's admin token");
    } finally {
      peer.destroy();
    }
    const channels = await admin('channel', 'list', '--json');
    expect(channels.code, channels.stderr).to.equal(0);
    expect((JSON.parse(channels.stdout) as { data: { code: string }[] }).data.map((c) => c.code)).to.not.include(code);
  });

  // Last: it takes the service's admin socket away.
  it('when another process answers on the admin socket, then the admin command refuses it and shows nothing of its answer', async () => {
    // What a process without the folder's admin token can do: listen where the service should, and answer anything.
    const socket = join(folder, 'admin.sock');
    await rm(socket, { force: true });
    const forged = JSON.stringify({ exitCode: 0, stdout: 'REVOKED key_forged\n', stderr: '' });
    const fake = net.createServer((peer) => {
      peer.on('error', () => undefined);
      peer.once('data', () => peer.end(`${forged}\n`));
    });
    await new Promise<void>((ok) => fake.listen(socket, ok));
    try {
      const revoked = await admin('key', 'revoke', '--key', 'key_anything');
      expect(revoked.code).to.equal(1);
      expect(revoked.stdout).to.equal('');
      expect(revoked.stderr).to.include(`the process answering on ${socket} could not prove it is the service holding this folder`);
      expect(revoked.stderr).to.not.include('REVOKED');
    } finally {
      await new Promise((ok) => fake.close(ok));
    }
  });
});
