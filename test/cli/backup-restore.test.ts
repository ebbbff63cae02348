import { expect } from 'chai';
import { randomBytes, randomUUID } from 'node:crypto';
import { copyFile, mkdir, mkdtemp, readFile, realpath, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';
import pg from 'pg';
import { adminProcessWith, type AdminRun } from '../support/cli.js';
import { databaseUrl } from '../support/database.js';
import { spawnServer, type ServerProcess } from '../support/reliability.js';
import { freePort } from '../../scripts/private-postgres.js';

type Env = Record<string, string | undefined>;

interface Demo {
  agentId: string;
  apiKey: string;
  wallet: { clientId: string; clientSecret: string; user: { userId: string } };
}

/** One write the service acknowledged, and when its answer arrived. */
interface Acknowledged {
  kind: 'order' | 'top-up';
  id: string;
  amount: number;
  at: number;
}

const json = async <T>(res: Response, status: number): Promise<T> => {
  const body = await res.text();
  expect(res.status, body).to.equal(status);
  return JSON.parse(body) as T;
};

/** The kid in a JWT's header. */
const kidOf = (jwt: string): string => (JSON.parse(Buffer.from(jwt.split('.')[0]!, 'base64url').toString()) as { kid: string }).kid;

/**
 * A backup holds no private signing key in clear (no JWK `d` member anywhere, every signing key
 * sealed) and no key that opens what is sealed.
 */
function expectNoPrivateKeys(gzipped: Buffer): void {
  const lines = gunzipSync(gzipped).toString('utf8').split('\n');
  expect(lines.join('\n')).to.not.match(/"d"\s*:/);
  const rowsOf = (table: string): Record<string, unknown>[] => {
    const at = lines.indexOf(`T ${table}`);
    expect(at, `the backup has ${table}`).to.be.at.least(0);
    const rows: Record<string, unknown>[] = [];
    for (let i = at + 1; lines[i]?.startsWith('R ') === true; i += 1) rows.push(JSON.parse(lines[i]!.slice(2)) as Record<string, unknown>);
    return rows;
  };
  const keys = rowsOf('token_signing_keys');
  expect(keys).to.not.be.empty;
  for (const k of keys) {
    expect(k.private_jwk, 'no private JWK in clear').to.equal(null);
    expect(k.sealed_private_jwk).to.match(/^v1\.[0-9a-f]{8}\./);
  }
  expect(rowsOf('webhook_secret_keys'), 'no sealing key').to.deep.equal([]);
}

async function machineToken(url: string, demo: Demo): Promise<string> {
  const basic = Buffer.from(`${demo.wallet.clientId}:${demo.wallet.clientSecret}`).toString('base64');
  const res = await fetch(`${url}/oauth/token`, {
    method: 'POST',
    headers: { authorization: `Basic ${basic}`, 'content-type': 'application/x-www-form-urlencoded' },
    body: 'grant_type=client_credentials',
  });
  return (await json<{ access_token: string }>(res, 200)).access_token;
}

/** How many orders this process has placed: each takes a pickup hour of its own (the demo fleet has 4 vehicles an hour). */
let ordersPlaced = 0;

async function placeOrder(url: string, apiKey: string): Promise<string> {
  ordersPlaced += 1;
  const pickupAt = new Date(Date.now() + 30 * 86_400_000 + ordersPlaced * 3_600_000).toISOString();
  const quote = await json<{ id: string }>(
    await fetch(`${url}/api/v1/airport-transfer/quotes`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'X-API-KEY': apiKey },
      body: JSON.stringify({ fromLocationId: 'loc_bkk', toLocationId: 'loc_bkk_h_riverside', pickupAt, passengers: 1 }),
    }),
    201,
  );
  const order = await json<{ id: string }>(
    await fetch(`${url}/api/v1/orders`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'X-API-KEY': apiKey, 'Idempotency-Key': randomUUID() },
      body: JSON.stringify({ quoteId: quote.id, contact: { name: 'Backup Test', email: 'backup@example.com' } }),
    }),
    201,
  );
  return order.id;
}

async function topUp(url: string, token: string, userId: string, amount: number): Promise<string> {
  const res = await fetch(`${url}/users/${userId}/top-ups`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}`, 'Idempotency-Key': randomUUID() },
    body: JSON.stringify({ amount: { amount, currency: 'THB' }, reference: `backup-${amount}` }),
  });
  return (await json<{ id: string }>(res, 201)).id;
}

/**
 * The agent's `order.confirmed` events from the feed, paged with `after`, once `done` holds of them
 * (a database serves an event once no transaction begun before it is open).
 */
async function orderFeed(
  url: string,
  apiKey: string,
  done: (feed: { id: string; orderId: string }[]) => boolean,
): Promise<{ id: string; orderId: string }[]> {
  const until = Date.now() + 30_000;
  for (;;) {
    const feed: { id: string; orderId: string }[] = [];
    for (let after: string | null = null; ;) {
      const res = await fetch(`${url}/api/v1/events?type=order.confirmed&limit=100${after === null ? '' : `&after=${after}`}`, {
        headers: { 'X-API-KEY': apiKey },
      });
      const page = await json<{ data: { id: string; data: { id: string } }[]; nextCursor: string | null }>(res, 200);
      feed.push(...page.data.map((e) => ({ id: e.id, orderId: e.data.id })));
      if (page.nextCursor === null) break;
      after = page.nextCursor;
    }
    if (done(feed)) return feed;
    if (Date.now() > until) throw new Error(`the feed did not get there within 30 s (${feed.length} events)`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Writes orders and top-ups on two loops until `stop()`; every acknowledged write is recorded. */
function writeLoad(url: string, demo: Demo, token: string): { acknowledged: Acknowledged[]; stop: () => Promise<void> } {
  const acknowledged: Acknowledged[] = [];
  let running = true;
  let amount = 100;
  const orders = (async () => {
    while (running) acknowledged.push({ kind: 'order', id: await placeOrder(url, demo.apiKey), amount: 0, at: Date.now() });
  })();
  const topUps = (async () => {
    while (running) {
      amount += 1;
      const a = amount;
      acknowledged.push({ kind: 'top-up', id: await topUp(url, token, demo.wallet.user.userId, a), amount: a, at: Date.now() });
    }
  })();
  return {
    acknowledged,
    stop: async () => {
      running = false;
      await Promise.all([orders, topUps]);
    },
  };
}

async function stopServer(server: ServerProcess | undefined): Promise<void> {
  if (server === undefined || server.child.exitCode !== null || server.child.signalCode !== null) return;
  server.child.kill('SIGTERM');
  await server.exited();
}

/** A database of its own on the test server, dropped at the end. */
async function onServer(url: string, sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

/**
 * `admin backup` while the service serves writes, then `admin restore` into an empty target and a
 * service on it: every write acknowledged before the backup began is there, the ledger agrees with
 * itself, and a write made after the backup ended is not.
 */
describe('backup and restore while the service serves', function () {
  this.timeout(600_000);
  const cleanups: (() => Promise<void>)[] = [];
  after(async () => {
    for (const c of cleanups.reverse()) await c().catch(() => undefined);
  });

  const scenario = async (source: Env, target: Env, restoreArgs: string[], beforeRestore = async () => undefined): Promise<void> => {
    const work = await realpath(await mkdtemp(join(tmpdir(), 'pbw-backup-')));
    cleanups.push(() => rm(work, { recursive: true, force: true }));
    const file = join(work, 'copy.pbw.gz');
    const admin = (env: Env, ...args: string[]): Promise<AdminRun> => adminProcessWith(env, ...args);

    let server: ServerProcess | undefined = await spawnServer('src/bootstrap/main.ts', source, await freePort(), 180_000);
    cleanups.push(() => stopServer(server));
    const seeded = await admin(source, 'demo', 'seed', '--json');
    expect(seeded.code, seeded.stderr).to.equal(0);
    const demo = JSON.parse(seeded.stdout) as Demo;
    // The write load books for as long as it runs: the demo agent is billed by invoice here.
    const invoiced = await admin(source, 'agent', 'set-billing', '--agent', demo.agentId, '--mode', 'invoice');
    expect(invoiced.code, invoiced.stderr).to.equal(0);
    const token = await machineToken(server.url, demo);

    const load = writeLoad(server.url, demo, token);
    while (load.acknowledged.length < 6) await new Promise((r) => setTimeout(r, 50));
    const began = Date.now();
    const backup = await admin(source, 'backup', '--out', file, '--json');
    expect(backup.code, backup.stderr).to.equal(0);
    await load.stop();
    const summary = JSON.parse(backup.stdout) as { rows: number; tables: number };
    expect(summary.rows).to.be.greaterThan(0);
    expect((await stat(file)).mode & 0o077, 'the backup is readable by its owner only').to.equal(0);
    expectNoPrivateKeys(await readFile(file));
    const before = load.acknowledged.filter((w) => w.at < began);
    expect(before.filter((w) => w.kind === 'order')).to.not.be.empty;
    expect(before.filter((w) => w.kind === 'top-up')).to.not.be.empty;
    // Acknowledged after the backup had ended: must not be in the copy.
    const lateOrder = await placeOrder(server.url, demo.apiKey);

    // The source's feed, once it serves the late order's event (every earlier write has ended).
    const sourceFeed = await orderFeed(server.url, demo.apiKey, (f) => f.some((e) => e.orderId === lateOrder));

    const again = await admin(source, 'backup', '--out', file, '--json');
    expect(again.code, 'an existing file is never overwritten').to.equal(1);
    expect(JSON.parse(again.stderr)).to.have.nested.property('error.reason', 'backup-refused');
    await stopServer(server);

    const cut = join(work, 'cut.pbw.gz');
    await writeFile(cut, (await readFile(file)).subarray(0, Math.floor((await stat(file)).size / 2)));
    const damaged = await admin(target, 'restore', '--in', cut, ...restoreArgs, '--json');
    expect(damaged.code, 'a cut-off copy is refused').to.equal(1);
    expect(JSON.parse(damaged.stderr)).to.have.nested.property('error.reason', 'restore-refused');

    // The refused copy left the target untouched: the whole copy goes in.
    await beforeRestore();
    const restored = await admin(target, 'restore', '--in', file, ...restoreArgs, '--json');
    expect(restored.code, restored.stderr).to.equal(0);
    expect(JSON.parse(restored.stdout)).to.include({ rows: summary.rows, tables: summary.tables });
    const twice = await admin(target, 'restore', '--in', file, ...restoreArgs, '--json');
    expect(twice.code, 'a non-empty target is refused').to.equal(1);
    expect(JSON.parse(twice.stderr)).to.have.nested.property('error.reason', 'restore-refused');

    server = await spawnServer('src/bootstrap/main.ts', target, await freePort(), 180_000);
    for (const w of before.filter((x) => x.kind === 'order')) {
      const res = await fetch(`${server.url}/api/v1/orders/${w.id}`, { headers: { 'X-API-KEY': demo.apiKey } });
      expect(res.status, `order ${w.id} acknowledged before the backup`).to.equal(200);
    }
    const late = await fetch(`${server.url}/api/v1/orders/${lateOrder}`, { headers: { 'X-API-KEY': demo.apiKey } });
    expect(late.status, 'an order made after the backup ended').to.equal(404);
    // The event feed: the restored events in the source's order, served on the new server, and a
    // new event after every one of them (their positions were rebased onto this server).
    const beforeIds = new Set(before.filter((w) => w.kind === 'order').map((w) => w.id));
    const restoredFeed = await orderFeed(server.url, demo.apiKey, (f) => [...beforeIds].every((id) => f.some((e) => e.orderId === id)));
    const restoredIds = new Set(restoredFeed.map((e) => e.id));
    expect(restoredFeed.map((e) => e.id)).to.deep.equal(sourceFeed.filter((e) => restoredIds.has(e.id)).map((e) => e.id));
    expect(restoredFeed.map((e) => e.orderId)).to.not.include(lateOrder);
    const newOrder = await placeOrder(server.url, demo.apiKey);
    const grown = await orderFeed(server.url, demo.apiKey, (f) => f.some((e) => e.orderId === newOrder));
    expect(grown.map((e) => e.orderId)).to.deep.equal([...restoredFeed.map((e) => e.orderId), newOrder]);
    const restoredToken = await machineToken(server.url, demo);
    expect(kidOf(restoredToken), 'the restored signing key signs').to.equal(kidOf(token));
    const signedBefore = await fetch(`${server.url}/users/${demo.wallet.user.userId}`, { headers: { authorization: `Bearer ${token}` } });
    expect(signedBefore.status, 'a token signed before the backup').to.equal(200);
    for (const w of before.filter((x) => x.kind === 'top-up')) {
      const res = await fetch(`${server.url}/transactions/${w.id}`, { headers: { authorization: `Bearer ${restoredToken}` } });
      const tx = await json<{ amount: { amount: number } }>(res, 200);
      expect(tx.amount.amount).to.equal(w.amount);
    }
    const user = await json<{ balance: { amount: number } }>(
      await fetch(`${server.url}/users/${demo.wallet.user.userId}`, { headers: { authorization: `Bearer ${restoredToken}` } }),
      200,
    );
    let credited = 0;
    for (let cursor: string | null = ''; cursor !== null;) {
      const page: { data: { type: string; amount: { amount: number } }[]; nextCursor: string | null } = await json(
        await fetch(`${server.url}/transactions?userId=${demo.wallet.user.userId}&limit=100${cursor === '' ? '' : `&cursor=${cursor}`}`, {
          headers: { authorization: `Bearer ${restoredToken}` },
        }),
        200,
      );
      credited += page.data.filter((t) => t.type === 'TOP_UP').reduce((sum, t) => sum + t.amount.amount, 0);
      cursor = page.nextCursor;
    }
    expect(user.balance.amount, 'the balance is the sum of the restored top-ups').to.equal(credited);
    expect(credited).to.be.at.least(before.filter((w) => w.kind === 'top-up').reduce((sum, w) => sum + w.amount, 0));
    await stopServer(server);
  };

  it('when the embedded service is backed up through the running server and restored into a new folder, then every acknowledged write is there', async () => {
    const root = await realpath(await mkdtemp(join(tmpdir(), 'pbw-bk-')));
    cleanups.push(() => rm(root, { recursive: true, force: true }));
    const source = { DATABASE_URL: undefined, PERSISTENCE: 'pglite', PGLITE_DIR: join(root, 'a'), SECRETS_KEY: undefined };
    const target = { DATABASE_URL: undefined, PERSISTENCE: 'pglite', PGLITE_DIR: join(root, 'b'), SECRETS_KEY: undefined };
    // The backup does not hold the folder's key: it is put in the new folder, as an operator keeps it apart.
    await scenario(source, target, [], async () => {
      await mkdir(join(root, 'b'), { recursive: true, mode: 0o700 });
      await copyFile(join(root, 'a', 'secrets.key'), join(root, 'b', 'secrets.key'));
    });
  });

  it('when a PostgreSQL database is backed up under load and restored into an empty one, then every acknowledged write is there', async function () {
    const url = await databaseUrl();
    if (url === null) this.skip();
    const base = new URL(url);
    const names = [`${base.pathname.slice(1)}_bk_a_${process.pid}`, `${base.pathname.slice(1)}_bk_b_${process.pid}`];
    const [a, b] = names.map((name) => {
      const u = new URL(url);
      u.pathname = `/${name}`;
      return u.toString();
    }) as [string, string];
    for (const name of names) {
      await onServer(url, `DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      await onServer(url, `CREATE DATABASE "${name}"`);
      cleanups.push(() => onServer(url, `DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`));
    }
    const key = randomBytes(32).toString('base64');
    await scenario(
      { DATABASE_URL: a, PERSISTENCE: undefined, SECRETS_KEY: key },
      { DATABASE_URL: b, PERSISTENCE: undefined, SECRETS_KEY: key },
      [],
    );
  });
});

describe('restore into a database that is not empty', function () {
  this.timeout(120_000);

  it('when the target database holds a table in a schema other than public, then the restore is refused and the database is left as it was', async function () {
    const url = await databaseUrl();
    if (url === null) this.skip();
    const name = `${new URL(url).pathname.slice(1)}_rs_${process.pid}`;
    const target = new URL(url);
    target.pathname = `/${name}`;
    const work = await realpath(await mkdtemp(join(tmpdir(), 'pbw-rs-')));
    try {
      await onServer(url, `DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      await onServer(url, `CREATE DATABASE "${name}"`);
      await onServer(target.toString(), 'CREATE SCHEMA other; CREATE TABLE other.accounts (id int)');
      // A complete backup of nothing: a header and an end.
      const file = join(work, 'empty.pbw.gz');
      const header = { format: 'partner-booking-wallet-backup', version: 1, startedAt: new Date().toISOString(), migrations: [] };
      await writeFile(file, gzipSync(`H ${JSON.stringify(header)}\nE {"tables":0,"rows":0}\n`), { mode: 0o600 });

      const run = await adminProcessWith({ DATABASE_URL: target.toString(), PERSISTENCE: undefined }, 'restore', '--in', file, '--json');
      expect(run.code, run.stdout).to.equal(1);
      const error = (JSON.parse(run.stderr) as { error: { reason: string; message: string } }).error;
      expect(error.reason).to.equal('restore-refused');
      expect(error.message).to.include('other.accounts');
      const client = new pg.Client({ connectionString: target.toString() });
      await client.connect();
      try {
        const tables = await client.query(
          `SELECT schemaname || '.' || tablename AS t FROM pg_tables WHERE schemaname NOT IN ('pg_catalog', 'information_schema')`,
        );
        expect(tables.rows.map((r: { t: string }) => r.t)).to.deep.equal(['other.accounts']);
      } finally {
        await client.end();
      }
    } finally {
      await onServer(url, `DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      await rm(work, { recursive: true, force: true });
    }
  });
});
