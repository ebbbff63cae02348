import { expect } from 'chai';
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { adminQuery } from '../support/reliability.js';
import { databaseUrl } from '../support/database.js';

const run = promisify(execFile);
const root = new URL('../..', import.meta.url).pathname;

/** The shell blocks of the README's tour section, in order: what a reader pastes. */
function tourBlocks(readme: string): string[] {
  const section = readme.split(/^## /m).find((s) => s.startsWith('Five-minute tour'));
  if (section === undefined) throw new Error('README.md has no "## Five-minute tour" section');
  return [...section.matchAll(/^```bash\n([\s\S]*?)^```/gm)].map((m) => m[1] ?? '');
}

/** The shell blocks of one `## ` section of a guide under docs/. */
async function guideBlocks(file: string, heading: string): Promise<string[]> {
  const text = await readFile(join(root, 'docs', file), 'utf8');
  const section = text.split(/^## /m).find((s) => s.startsWith(heading));
  if (section === undefined) throw new Error(`docs/${file} has no "## ${heading}" section`);
  return [...section.matchAll(/^```bash\n([\s\S]*?)^```/gm)].map((m) => m[1] ?? '');
}

async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** Where the tour's service keeps its data: a fresh embedded folder, or a fresh PostgreSQL database. */
interface Store {
  readonly env: Record<string, string | undefined>;
  readonly describe: string;
  dispose(): Promise<void>;
}

async function freshStore(): Promise<Store> {
  const serverUrl = await databaseUrl();
  if (serverUrl === null) {
    const dir = await mkdtemp(join(tmpdir(), 'pbw-tour-'));
    return {
      env: { DATABASE_URL: undefined, PGLITE_DIR: join(dir, 'data') },
      describe: 'embedded',
      dispose: () => rm(dir, { recursive: true, force: true }),
    };
  }
  const name = `pbw_tour_${Date.now()}_${process.pid}`;
  await adminQuery(serverUrl, `CREATE DATABASE ${name}`);
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return {
    env: { DATABASE_URL: url.toString(), PGLITE_DIR: undefined },
    describe: 'PostgreSQL',
    dispose: async () => {
      await adminQuery(serverUrl, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    },
  };
}

function envWith(extra: Record<string, string | undefined>): NodeJS.ProcessEnv {
  const merged: NodeJS.ProcessEnv = { ...process.env, LOG_LEVEL: 'warn', ...extra };
  for (const [k, v] of Object.entries(extra)) if (v === undefined) delete merged[k];
  return merged;
}

/** Runs `bash` on `script` with `set -euo pipefail`; stdout and stderr in one stream, in order. */
function runBash(script: string, env: NodeJS.ProcessEnv, timeoutMs: number): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn('bash', ['-c', 'exec 2>&1\nset -euo pipefail\n' + script], { cwd: root, env, stdio: ['ignore', 'pipe', 'ignore'] });
    let output = '';
    child.stdout.on('data', (d: Buffer) => (output += d.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, output });
    });
  });
}

describe('README: the five-minute tour, run as written', function () {
  this.timeout(300_000);
  let store: Store;
  let server: ChildProcess;
  let serverOutput = '';
  let port: number;
  let env: NodeJS.ProcessEnv;
  let readme: string;

  before(async function () {
    readme = await readFile(join(root, 'README.md'), 'utf8');
    // `npm start` and `npm run admin` compile first when dist/ is missing or stale; so does this test.
    await run(process.execPath, ['scripts/build-if-stale.mjs'], { cwd: root });
    store = await freshStore();
    port = await freePort();
    env = envWith({ ...store.env, PORT: String(port) });
    server = spawn(process.execPath, ['dist/bootstrap/main.js'], { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] });
    server.stdout?.on('data', (d: Buffer) => (serverOutput += d.toString()));
    server.stderr?.on('data', (d: Buffer) => (serverOutput += d.toString()));
    const deadline = Date.now() + 240_000;
    while (!serverOutput.includes('Listening on')) {
      if (server.exitCode !== null) throw new Error(`the service exited (${store.describe}):\n${serverOutput}`);
      if (Date.now() > deadline) throw new Error(`the service did not start (${store.describe}):\n${serverOutput}`);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  });

  after(async function () {
    if (server !== undefined && server.exitCode === null) {
      const exited = new Promise((resolve) => server.once('exit', resolve));
      server.kill('SIGTERM');
      await exited;
    }
    await store?.dispose();
  });

  it('when its shell blocks run with bash, then an order is booked and paid from the wallet, every id carried by the commands', async function () {
    const blocks = tourBlocks(readme);
    expect(blocks.length, 'shell blocks in the tour').to.be.at.least(3);
    const script = blocks.join('\n');
    // What a default Debian lacks, and pasting by hand, have no place in the tour.
    const commands = script.replace(/(^|\s)#.*$/gm, '');
    expect(commands).not.to.match(/\b(jq|uuidgen)\b/);
    expect(script).not.to.match(/(qte|ord|usr|txn|agt|key|cli)_[0-9A-Z]{6,}|pbk_[A-Za-z0-9]{10,}/);

    const { code, output } = await runBash(script, env, 180_000);
    expect(code, `the tour failed:\n${output}`).to.equal(0);

    // The quote the README shows is the one the demo gives.
    const documented = /"price":\{"amount":(\d+),"currency":"THB"\}/.exec(blocks.join('\n'))?.[1];
    expect(documented, 'the README shows the quote price').to.be.a('string');
    expect(output).to.include(`"price":{"amount":${String(documented)},"currency":"THB"}`);

    const orderId = /^order (ord_\w+) is CONFIRMED$/m.exec(output)?.[1];
    expect(orderId, `an order line in:\n${output}`).to.be.a('string');
    expect(output).to.match(new RegExp(`^found by reference ACME-\\d+: ${String(orderId)}$`, 'm'));
    expect(output).to.match(/^signed in as Demo Travel Agency$/m);
    // The demo agent is prepaid and funded: the booking is paid from its account (CONTRACT §6.4).
    const accountBefore = Number(/^account balance before: (-?\d+)$/m.exec(output)?.[1]);
    const accountAfter = Number(/^account balance after: (-?\d+)$/m.exec(output)?.[1]);
    expect(accountBefore, 'the demo account, funded, on a fresh store').to.equal(5_000_000);
    expect(accountAfter, 'the demo account after the booking').to.equal(accountBefore - Number(documented));
    // The voucher step: a PDF was written and its code names the voucher type.
    expect(output).to.match(/^voucher: %PDF- \d+ bytes in \S+\.pdf$/m);
    expect(output).to.match(/^code header: \{"alg":"ES256","kid":"[^"]+","typ":"voucher\+jwt"\}$/m);
    const before = Number(/^balance before: (\d+)$/m.exec(output)?.[1]);
    const after = /^payment (txn_\w+); balance after: (\d+)$/m.exec(output);
    expect(before, 'the balance after the top-up, on a fresh store').to.equal(50_000);
    expect(after, `a payment line in:\n${output}`).not.to.equal(null);
    const paymentId = String(after?.[1]);
    expect(Number(after?.[2])).to.equal(before - 12_000);
    expect(output).to.match(/^latest: PAYMENT$/m);

    // Independently of the tour's own output: the order and the payment are really there.
    const demo = JSON.parse(
      (await run(process.execPath, ['dist/bootstrap/admin.js', 'demo', 'seed', '--reset', '--json'], { cwd: root, env })).stdout,
    ) as { apiKey: string; wallet: { clientId: string; clientSecret: string; user: { userId: string } } };
    const base = `http://127.0.0.1:${port}`;
    const order = await fetch(`${base}/api/v1/orders/${String(orderId)}`, { headers: { 'X-API-KEY': demo.apiKey } });
    expect(order.status).to.equal(200);
    expect(await order.json()).to.include({ id: orderId, status: 'CONFIRMED' });

    const basic = Buffer.from(`${demo.wallet.clientId}:${demo.wallet.clientSecret}`).toString('base64');
    const token = await fetch(`${base}/oauth/token`, {
      method: 'POST',
      headers: { Authorization: `Basic ${basic}`, 'Content-Type': 'application/x-www-form-urlencoded' },
      body: 'grant_type=client_credentials',
    });
    const { access_token: machine } = (await token.json()) as { access_token: string };
    const payment = await fetch(`${base}/transactions/${paymentId}`, { headers: { Authorization: `Bearer ${machine}` } });
    expect(payment.status).to.equal(200);
    const body = (await payment.json()) as { type: string; amount: unknown; reference: string; userId: string };
    expect(body).to.deep.include({ type: 'PAYMENT', amount: { amount: 12_000, currency: 'THB' }, reference: orderId });
    const user = await fetch(`${base}/users/${demo.wallet.user.userId}`, { headers: { Authorization: `Bearer ${machine}` } });
    expect(((await user.json()) as { balance: { amount: number } }).balance.amount).to.equal(Number(after?.[2]));
  });

  it('when TOUR_MODE=test is set first, then the same blocks run in a sandbox: test credentials, livemode false throughout', async function () {
    const script = tourBlocks(readme).join('\n');
    const { code, output } = await runBash(script, { ...env, TOUR_MODE: 'test' }, 180_000);
    expect(code, `the tour in test mode failed:\n${output}`).to.equal(0);
    expect(output).to.match(/^order ord_\w+ is CONFIRMED$/m);
    expect(output).to.match(/^signed in as Tour sandbox$/m);
    // Every object the sandbox's credentials were answered with is a test one.
    expect(output).to.include('"livemode":false');
    expect(output).not.to.include('"livemode":true');
    expect(output).to.match(/"apiKey":\{"id":"key_\w+","prefix":"pbk_test_/);
    const before = Number(/^account balance before: (-?\d+)$/m.exec(output)?.[1]);
    const after = Number(/^account balance after: (-?\d+)$/m.exec(output)?.[1]);
    expect(before, 'the sandbox agent, funded with sandbox money').to.be.greaterThan(0);
    expect(after).to.be.lessThan(before);
    expect(output).to.match(/^code header: \{"alg":"ES256","kid":"[^"]+","typ":"voucher\+jwt"\}$/m);
    expect(output).to.match(/^latest: PAYMENT$/m);
  });

  it("when the guides' examples run after the tour, then the bus order, wallet user, transfer, refund, authorization and statement are made", async function () {
    const script = [
      ...tourBlocks(readme),
      ...(await guideBlocks('booking-guide.md', 'Booking express-bus seats')),
      ...(await guideBlocks('wallet-guide.md', 'Money')),
      ...(await guideBlocks('wallet-guide.md', 'Authorizations')),
      ...(await guideBlocks('wallet-guide.md', 'Balances at an instant')),
    ].join('\n');
    const { code, output } = await runBash(script, env, 180_000);
    expect(code, `the examples failed:\n${output}`).to.equal(0);
    expect(output).to.match(/"product":"express-bus"/);
    expect(output).to.match(/^TRANSFER$/m);
    expect(output).to.match(/^REFUND$/m);
    // The guide's authorization holds 3000, its final capture names it, and the CSV has its header.
    expect(output).to.match(/^3000$/m);
    expect(output).to.match(/^auth_\w+$/m);
    expect(output).to.match(/^CAPTURED$/m);
    expect(output).to.match(/^at,type,transactionId,reference,amount,balance,currency$/m);
    // The user the wallet guide creates signs in with the password it was given.
    expect(output).to.match(/^Bearer$/m);
  });
});
