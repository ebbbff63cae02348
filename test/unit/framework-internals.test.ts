import { expect } from 'chai';
import express from 'express';
import type { AddressInfo } from 'node:net';
import { expressServerClasses } from '../../src/adapters/http/server-classes.js';
import http from 'node:http';
import { rows } from '../../src/adapters/knex/sql.js';
import { testDatabase } from '../support/database.js';

// These tests pin what the service relies on of Express and Knex beyond their everyday API. When
// one fails after an upgrade, what it relies on moved: fix src/adapters/http/server-classes.ts or
// src/adapters/knex/sql.ts, not the test.

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
    it('when a raw statement carries a name in its options, then node-postgres prepares it under that name and it answers as before', async () => {
      const db = await testDatabase();
      const { knex } = db;
      await knex.transaction(async (trx) => {
        // Knex hands a raw query's options to the driver as they are (public: `raw(...).options`).
        expect(await rows<{ n: number }>(trx, 'SELECT $1::int + $1::int AS n', [7], 'framework_internals_probe')).to.deep.equal([
          { n: 14 },
        ]);
        // Embedded PGlite's driver runs every statement unnamed: only node-postgres prepares one.
        if (db.target.kind !== 'postgres') return;
        const prepared = await rows<{ name: string }>(trx, 'SELECT name FROM pg_prepared_statements WHERE name = $1', [
          'framework_internals_probe',
        ]);
        expect(prepared, 'Knex no longer passes a raw query’s options to node-postgres').to.deep.equal([
          { name: 'framework_internals_probe' },
        ]);
      });
      // A literal question mark (a jsonb operator) is not taken for a binding.
      expect(await rows<{ has: boolean }>(knex, `SELECT $1::jsonb ? 'a' AS has`, ['{"a":1}'])).to.deep.equal([{ has: true }]);
    });
  });
});
