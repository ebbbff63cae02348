import { expect } from 'chai';
import { mkdtemp, realpath, rm } from 'node:fs/promises';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { migrate, openDatabase, type Database } from '../../src/adapters/knex/database.js';
import { restoreBackup, writeBackup } from '../../src/adapters/knex/backup.js';
import { recordEvents } from '../../src/adapters/knex/outbox.knex.js';
import { KnexWebhookStore } from '../../src/adapters/knex/webhook-store.knex.js';
import { orderChanged, type EventOwner } from '../../src/domain/webhooks/events.js';
import { orderRecord } from '../support/booking-builders.js';
import { databaseKind, databaseUrl } from '../support/database.js';

const onServer = async (url: string, sql: string): Promise<void> => {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
};

/** Until every transaction of the server begun before the call has ended. */
async function settle(db: Database): Promise<void> {
  const [{ xmax }] = (await db.knex.raw('SELECT pg_snapshot_xmax(pg_current_snapshot())::text AS xmax')).rows as [{ xmax: string }];
  for (let i = 0; i < 1500; i++) {
    const [{ done }] = (await db.knex.raw('SELECT pg_snapshot_xmin(pg_current_snapshot()) >= ?::xid8 AS done', [xmax])).rows as [
      { done: boolean },
    ];
    if (done) return;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error('a transaction of the server stayed open for 30 s');
}

describe('event feed across a backup restored on another server (PostgreSQL)', function () {
  this.timeout(120_000);
  const cleanups: (() => Promise<unknown>)[] = [];
  after(async () => {
    for (const c of cleanups.reverse()) await c().catch(() => undefined);
  });

  it('when the backup’s transaction ids are far ahead of the new server’s, then the restored feed serves every event in its order, and new events come after them', async function () {
    const url = await databaseUrl();
    if ((await databaseKind()) !== 'postgres' || url === null) this.skip(); // two databases of one server
    const base = new URL(url);
    const urls = ['a', 'b'].map((x) => {
      const u = new URL(url);
      u.pathname = `/${base.pathname.slice(1)}_feed_${x}_${process.pid}`;
      return u.toString();
    }) as [string, string];
    for (const u of urls) {
      const name = new URL(u).pathname.slice(1);
      await onServer(url, `DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      await onServer(url, `CREATE DATABASE "${name}"`);
      cleanups.push(() => onServer(url, `DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`));
    }
    const work = await realpath(await mkdtemp(join(tmpdir(), 'pbw-feed-')));
    cleanups.push(() => rm(work, { recursive: true, force: true }));
    const source = await openDatabase({ kind: 'postgres', url: urls[0], poolMax: 4 });
    cleanups.push(() => source.close());
    await migrate(source);

    const owner: EventOwner = { kind: 'agent', id: `agt_${randomBytes(8).toString('hex')}` };
    const [first, a, b] = [orderRecord(owner.id), orderRecord(owner.id), orderRecord(owner.id)];
    await recordEvents(source.knex, [orderChanged(first, null, new Date())]);
    // A takes its transaction id before B, records after B: the feed's order (A, B) is not the insert order (B, A).
    const trxA = await source.knex.transaction();
    await trxA.raw('SELECT pg_current_xact_id()');
    await recordEvents(source.knex, [orderChanged(b, null, new Date())]);
    await recordEvents(trxA, [orderChanged(a, null, new Date())]);
    await trxA.commit();
    await settle(source);
    const orderOf = (body: string) => (JSON.parse(body) as { data: { id: string } }).data.id;
    const before = (await new KnexWebhookStore(source.knex).feed(owner, null, null, 10))!;
    expect(before.map((e) => orderOf(e.body))).to.deep.equal([first.id, a.id, b.id]);
    // As if the source server had run a billion transactions more than the one restored on (the
    // source itself now serves none of them: they are ahead of its own transactions).
    await source.knex.raw(`UPDATE webhook_events SET txid = ((txid::text)::bigint + 1000000000)::text::xid8`);
    expect(await new KnexWebhookStore(source.knex).feed(owner, null, null, 10)).to.deep.equal([]);
    const file = join(work, 'copy.pbw.gz');
    await writeBackup(source.knex, file);

    const target = await openDatabase({ kind: 'postgres', url: urls[1], poolMax: 4 });
    cleanups.push(() => target.close());
    await restoreBackup(target.knex, file);
    const store = new KnexWebhookStore(target.knex);
    await settle(target);
    const restored = (await store.feed(owner, null, null, 10))!;
    expect(restored.map((e) => e.id)).to.deep.equal(before.map((e) => e.id));
    expect(await store.feed(owner, before[0]!.id, null, 10)).to.deep.equal(restored.slice(1));

    const later = orderRecord(owner.id);
    await recordEvents(target.knex, [orderChanged(later, null, new Date())]);
    await settle(target);
    const next = (await store.feed(owner, before[2]!.id, null, 10))!;
    expect(next.map((e) => orderOf(e.body))).to.deep.equal([later.id]);
  });
});
