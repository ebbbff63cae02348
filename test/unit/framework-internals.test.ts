import { expect } from 'chai';
import express, { type Router } from 'express';
import knexFactory from 'knex';
import type { AddressInfo } from 'node:net';
import { appRouter, inlineRoutes } from '../../src/adapters/http/express-internals.js';
import { tarnPoolOf, withPooledConnection } from '../../src/adapters/knex/knex-internals.js';
import { rows } from '../../src/adapters/knex/sql.js';
import { testDatabase } from '../support/database.js';

// These tests pin what the service reads of Express's and Knex's internals. When one fails after
// an upgrade, the internals moved: fix src/adapters/http/express-internals.ts or
// src/adapters/knex/knex-internals.ts, not the test.

const routesOnly = (): Router => {
  const r = express.Router();
  r.get('/a', (_req, res) => void res.json({ at: 'a' }));
  r.post('/b/:id', (req, res) => void res.json({ at: 'b', id: req.params.id }));
  return r;
};

async function serve(
  app: express.Express,
): Promise<{ get: (path: string, method?: string) => Promise<[number, unknown]>; close: () => Promise<void> }> {
  const server = app.listen(0, '127.0.0.1');
  await new Promise<void>((ok) => server.once('listening', ok));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    get: async (path, method = 'GET') => {
      const res = await fetch(base + path, { method });
      return [res.status, res.headers.get('content-type')?.includes('json') ? await res.json() : await res.text()];
    },
    close: () => new Promise<void>((ok) => server.close(() => ok())),
  };
}

describe('framework internals the service relies on', () => {
  describe('Express', () => {
    it('when a router holds only routes, then its routes move into the app router and answer as before', async () => {
      const app = express();
      expect(inlineRoutes(appRouter(app), routesOnly()), 'Express router layers are no longer shaped as expected').to.equal(true);
      const parent = express.Router();
      expect(inlineRoutes(parent, routesOnly())).to.equal(true);
      app.use('/nested', parent);
      const http = await serve(app);
      try {
        expect(await http.get('/a')).to.deep.equal([200, { at: 'a' }]);
        expect(await http.get('/b/42', 'POST')).to.deep.equal([200, { at: 'b', id: '42' }]);
        expect(await http.get('/nested/a')).to.deep.equal([200, { at: 'a' }]);
        expect((await http.get('/b/42'))[0]).to.equal(404);
      } finally {
        await http.close();
      }
    });

    it('when a router has middleware or a param handler, then nothing moves (it must be mounted as it is)', () => {
      const withMiddleware = routesOnly();
      withMiddleware.use((_req, _res, next) => next());
      const withParam = routesOnly();
      withParam.param('id', (_req, _res, next) => next());
      const parent = express.Router();
      expect(inlineRoutes(parent, withMiddleware)).to.equal(false);
      expect(inlineRoutes(parent, withParam)).to.equal(false);
      expect((parent as unknown as { stack: unknown[] }).stack).to.have.length(0);
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
