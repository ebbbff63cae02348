import { expect } from 'chai';
import express from 'express';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { jsonBody } from '../../src/adapters/http/request-guards.js';
import { errorHandler } from '../../src/adapters/http/errors.js';
import { runIdempotent } from '../../src/adapters/http/idempotent-route.js';
import { requestId } from '../../src/adapters/http/request-context.js';
import { KnexIdempotencyStore } from '../../src/adapters/knex/idempotency.knex.js';
import { SystemClock } from '../../src/adapters/crypto/node-crypto.js';
import { KnexUnitOfWork } from '../../src/adapters/knex/unit-of-work.knex.js';
import { IdempotentWrites } from '../../src/application/idempotent-writes.js';
import { silentLog } from '../support/app.js';
import { testDatabase } from '../support/database.js';
import { unique } from '../support/builders.js';

/** The Idempotency-Key handling of declared operations on the PostgreSQL store, around a write that counts its effects. */
describe('Idempotency-Key on writes', () => {
  let server: http.Server;
  let url: string;
  let effects = 0;
  let fail = false;

  before(async () => {
    const db = await testDatabase();
    // Claimed when the request arrives, in a unit of work, so that the route's count of its runs is its count of effects.
    const writes = new IdempotentWrites(new KnexUnitOfWork(db.knex), new KnexIdempotencyStore(db.knex), new SystemClock());
    const app = express();
    app.use(requestId);
    app.post(
      '/things',
      jsonBody,
      (req, res, next) => {
        // The caller, as a credential check would leave it.
        res.locals.agent = { kind: 'agent', agentId: String(req.headers['x-caller']) } as never;
        next();
      },
      async (req, res) => {
        await runIdempotent(writes, { scope: 'agent' }, req, res, async () => {
          await new Promise((r) => setTimeout(r, 30));
          if (fail) return { status: 409, body: JSON.stringify({ reason: 'sold-out' }), contentType: 'application/json' };
          effects += 1;
          return { status: 201, body: JSON.stringify({ id: `thing_${effects}`, got: req.body }), contentType: 'application/json' };
        });
      },
    );
    app.use(errorHandler(silentLog));
    server = http.createServer(app);
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/things`;
  });
  after(() => new Promise<void>((r) => server.close(() => r())));
  beforeEach(() => {
    effects = 0;
    fail = false;
  });

  const post = (body: unknown, key?: string, caller = 'a') =>
    fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-caller': caller, ...(key ? { 'idempotency-key': key } : {}) },
      body: JSON.stringify(body),
    });

  it('when a write is retried with the same key and body, then the first response comes back, marked replayed, with one effect', async () => {
    const key = `k-${unique()}`;
    const first = await post({ a: 1, b: 2 }, key);
    const again = await post({ b: 2, a: 1 }, key);
    expect(first.status).to.equal(201);
    expect(again.status).to.equal(201);
    expect(again.headers.get('idempotent-replayed')).to.equal('true');
    expect(first.headers.get('idempotent-replayed')).to.equal(null);
    expect(await again.text()).to.equal(await first.text());
    expect(effects).to.equal(1);
  });

  it('when the same key comes with another body, then 422 idempotency-key-reused', async () => {
    const key = `k-${unique()}`;
    await post({ a: 1 }, key);
    const res = await post({ a: 2 }, key);
    expect(res.status).to.equal(422);
    expect(((await res.json()) as { reason: string }).reason).to.equal('idempotency-key-reused');
  });

  it('when another caller uses the same key, then it is a separate request', async () => {
    const key = `k-${unique()}`;
    await post({ a: 1 }, key, 'a');
    const res = await post({ a: 1 }, key, 'b');
    expect(res.headers.get('idempotent-replayed')).to.equal(null);
    expect(effects).to.equal(2);
  });

  it('when the first attempt fails, then a retry with the same key runs again', async () => {
    const key = `k-${unique()}`;
    fail = true;
    expect((await post({ a: 1 }, key)).status).to.equal(409);
    fail = false;
    const res = await post({ a: 1 }, key);
    expect(res.status).to.equal(201);
    expect(effects).to.equal(1);
  });

  it('when the key header is empty or too long, then 400 invalid-request', async () => {
    for (const key of [' ', 'x'.repeat(256)]) {
      const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', 'idempotency-key': key }, body: '{}' });
      expect(res.status).to.equal(400);
      expect(((await res.json()) as { reason: string }).reason).to.equal('invalid-request');
    }
  });

  // On PGlite too: there the requests take turns on its one connection, the later ones replay.
  it('when 20 requests with one key arrive at once, then one effect and every answer is the first one (19 replays)', async () => {
    const key = `k-${unique()}`;
    const responses = await Promise.all(Array.from({ length: 20 }, () => post({ a: 1 }, key)));
    expect(effects).to.equal(1);
    expect(responses.map((r) => r.status)).to.deep.equal(Array(20).fill(201));
    expect(responses.filter((r) => r.headers.get('idempotent-replayed') === 'true')).to.have.length(19);
    expect(new Set(await Promise.all(responses.map((r) => r.text()))).size).to.equal(1);
  });
});
