import { expect } from 'chai';
import express from 'express';
import knexFactory from 'knex';
import type { AddressInfo } from 'node:net';
import { expressServerClasses } from '../../src/adapters/http/server-classes.js';
import http from 'node:http';
import { tarnPoolOf, withPooledConnection } from '../../src/adapters/knex/knex-internals.js';
import { rows } from '../../src/adapters/knex/sql.js';
import { testDatabase } from '../support/database.js';

// These tests pin what the service relies on of Express and Knex beyond their everyday API. When
// one fails after an upgrade, what it relies on moved: fix src/adapters/http/server-classes.ts or
// src/adapters/knex/knex-internals.ts, not the test.

describe('framework internals the service relies on', () => {
  describe('Express', () => {
    it("when the server is built with Express's request and response classes, then requests arrive with Express's prototypes and answer as before", async () => {
      const app = express();
      const seen: boolean[] = [];
      app.use((req, res, next) => {
        seen.push(Object.getPrototypeOf(req) === app.request, Object.getPrototypeOf(res) === app.response);
        next();
      });
      app.get('/a', (req, res) => void res.status(201).json({ ip: typeof req.ip, query: req.query }));
      const server = http.createServer({ ...expressServerClasses(app) }, app);
      server.on('request', (req: http.IncomingMessage, res: http.ServerResponse) => {
        // Before Express has handled the request at all.
        seen.push(Object.getPrototypeOf(req) === app.request, Object.getPrototypeOf(res) === app.response);
      });
      server.listen(0, '127.0.0.1');
      await new Promise<void>((ok) => server.once('listening', ok));
      try {
        const res = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/a?x=1`);
        expect([res.status, await res.json()]).to.deep.equal([201, { ip: 'string', query: { x: '1' } }]);
        expect(seen, 'Express no longer keeps its prototypes on app.request / app.response').to.deep.equal([true, true, true, true]);
      } finally {
        await new Promise<void>((ok) => server.close(() => ok()));
      }
    });
  });

  describe('Knex', () => {
    it('when a pg client is built, then it exposes a tarn pool with the counters the metrics read', async () => {
      const knex = knexFactory({ client: 'pg', connection: 'postgres://nobody@127.0.0.1:1/none', pool: { min: 0, max: 3 } });
      try {
        const pool = tarnPoolOf(knex);
        expect(pool, 'Knex no longer exposes client.pool as a tarn pool').to.not.equal(null);
        expect([pool!.numUsed(), pool!.numFree(), pool!.numPendingAcquires(), pool!.max]).to.deep.equal([0, 0, 0, 3]);
      } finally {
        await knex.destroy();
      }
    });

    it('when a statement runs on a pooled connection, then it answers and the connection goes back to the pool', async () => {
      const { knex } = await testDatabase();
      const pool = tarnPoolOf(knex);
      const usedBefore = pool?.numUsed() ?? 0;
      const answer = await withPooledConnection(knex, async (c) => (await c.query('SELECT 41 + $1::int AS n', [1])).rows);
      expect(answer).to.deep.equal([{ n: 42 }]);
      expect(await rows<{ n: number }>(knex, 'SELECT $1::int AS n', [7], 'framework_internals_probe')).to.deep.equal([{ n: 7 }]);
      expect(pool?.numUsed() ?? 0).to.equal(usedBefore);
      await knex.transaction(async (trx) => {
        expect(await rows<{ n: number }>(trx, 'SELECT 1 AS n', [])).to.deep.equal([{ n: 1 }]);
      });
    });
  });
});
