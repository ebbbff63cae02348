import { expect } from 'chai';
import express, { type Router } from 'express';
import knexFactory from 'knex';
import type { AddressInfo } from 'node:net';
import { appRouter, expressServerClasses, inlineRoutes, installRouteShortcuts } from '../../src/adapters/http/express-internals.js';
import http from 'node:http';
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

    describe('route shortcuts', () => {
      /** An app with the shapes the service uses: middleware, a mounted router, routes, error handlers. */
      const shaped = (): express.Express => {
        const app = express();
        app.set('query parser', 'simple');
        app.use((req, res, next) => {
          res.setHeader('x-seen', `${req.baseUrl}|${req.url}`);
          next();
        });
        app.use('/mounted', (req, res, next) => {
          res.setHeader('x-mounted', `${req.baseUrl}|${req.url}`);
          next();
        });
        app.get('/mounted', (req, res) => void res.json({ url: req.url, baseUrl: req.baseUrl, seen: res.getHeader('x-mounted') }));
        app.get('/plain', (req, res) => void res.json({ query: req.query, url: req.url, originalUrl: req.originalUrl }));
        app.get('/skip', (_req, _res, next) => next('route'));
        app.get('/skip', (_req, res) => void res.json({ at: 'second /skip route' }));
        app.get('/boom', async () => {
          await Promise.resolve();
          throw new Error('async boom');
        });
        const api = express.Router();
        api.get('/open', (req, res) => void res.json({ baseUrl: req.baseUrl, url: req.url, route: req.route?.path }));
        api.use((req, res, next) => {
          if (req.headers['x-key'] !== 'k') {
            next(Object.assign(new Error('no key'), { status: 401 }));
            return;
          }
          res.locals.who = 'keyed';
          next();
        });
        api.post('/guarded', (req, res) => void res.status(201).json({ who: res.locals.who, baseUrl: req.baseUrl, url: req.url }));
        const fail: express.RequestHandler = (_req, _res, next) => next(new Error('inner'));
        const inRoute: express.ErrorRequestHandler = (err: Error, _req, res, _next) =>
          void res.status(418).json({ handledInRoute: err.message });
        api.get('/guarded', fail, inRoute);
        api.get('/users/:id', (req, res) => void res.json({ id: req.params.id }));
        app.use('/api', api);
        app.use((_req, res) => void res.status(404).json({ notFound: true }));
        app.use(((err: Error & { status?: number }, req, res, _next) => {
          res.status(err.status ?? 500).json({ error: err.message, baseUrl: req.baseUrl, url: req.url });
        }) as express.ErrorRequestHandler);
        return app;
      };

      const requests: Array<[string, string, Record<string, string>?]> = [
        ['GET', '/plain?x=1&y=2'],
        ['GET', '/mounted?q=1'],
        ['GET', '/mounted'],
        ['GET', '/PLAIN'],
        ['GET', '/plain/'],
        ['HEAD', '/plain'],
        ['GET', '/skip'],
        ['GET', '/boom'],
        ['GET', '/api/open?z=9'],
        ['POST', '/api/guarded'],
        ['POST', '/api/guarded', { 'x-key': 'k' }],
        ['GET', '/api/guarded', { 'x-key': 'k' }],
        ['GET', '/api/users/7'],
        ['DELETE', '/api/open'],
        ['GET', '/nowhere'],
      ];

      async function answers(app: express.Express): Promise<string[]> {
        const server = app.listen(0, '127.0.0.1');
        await new Promise<void>((ok) => server.once('listening', ok));
        const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
        try {
          const out: string[] = [];
          for (const [method, path, headers] of requests) {
            const res = await fetch(base + path, { method, headers: headers ?? {} });
            out.push(`${method} ${path} -> ${res.status} ${res.headers.get('x-seen')} ${await res.text()}`);
          }
          return out;
        } finally {
          await new Promise<void>((ok) => server.close(() => ok()));
        }
      }

      it('when literal paths take the shortcut, then every request answers exactly as through the routers', async () => {
        const routed = await answers(shaped());
        const app = shaped();
        installRouteShortcuts(app);
        expect(await answers(app)).to.deep.equal(routed);
        expect(routed).to.include('GET /skip -> 200 |/skip {"at":"second /skip route"}');
        expect(routed).to.include('GET /api/guarded -> 418 |/api/guarded {"handledInRoute":"inner"}');
      });

      it('when a literal path is requested, then the application router is not walked (the shortcut is in use)', async () => {
        const app = shaped();
        installRouteShortcuts(app);
        const router = appRouter(app) as unknown as { handle: (...args: unknown[]) => void };
        const walk = router.handle.bind(router);
        const walked: string[] = [];
        router.handle = (req: unknown, ...rest: unknown[]) => {
          walked.push((req as { url: string }).url);
          walk(req, ...rest);
        };
        await answers(app);
        expect(walked, 'Express routers are no longer shaped as the shortcuts expect').to.deep.equal([
          '/PLAIN',
          '/plain/',
          '/plain',
          '/api/users/7',
          '/api/open',
          '/nowhere',
        ]);
      });
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
