import { KnexIdempotencyStore } from '../../src/adapters/knex/idempotency.knex.js';
import { KnexLedger } from '../../src/adapters/knex/ledger.knex.js';
import { rows } from '../../src/adapters/knex/sql.js';
import { ambientTransaction, KnexUnitOfWork } from '../../src/adapters/knex/unit-of-work.knex.js';
import { databaseKind, testDatabase } from '../support/database.js';
import { ledgerTenant, topUpOf } from '../support/ledger-builders.js';
import { idempotencyContract } from 'partner-booking-wallet/testing';

for (const holdWrites of [true, false])
  idempotencyContract(
    holdWrites ? 'PostgreSQL (Knex), writes held to the end of the unit' : 'PostgreSQL (Knex), in a transaction from the start',
    async ({ waitMs }) => {
      const db = await testDatabase();
      const ledger = new KnexLedger(db.knex);
      const t = ledgerTenant();
      const u = t.newUser();
      return {
        // On PGlite too: the claim is the uncommitted insert in the unit of work's transaction.
        store: new KnexIdempotencyStore(db.knex, { waitMs }),
        unitOfWork: new KnexUnitOfWork(db.knex, { holdWrites }),
        effect: {
          write: async () => {
            await topUpOf(ledger, t, u, 1);
          },
          count: () => ledger.balanceOf(t.tenantId, u),
        },
      };
    },
    {
      concurrent: async () => (await databaseKind()) === 'postgres',
      decidesAtEnd: holdWrites,
      rollsBack: true,
      // PGlite runs in this process: its one connection dies only with the process.
      connectionKiller: async () => {
        const db = await testDatabase();
        if (db.target.kind !== 'postgres') return null;
        return async () => {
          const [backend] = await rows<{ pid: number }>(ambientTransaction()!, 'SELECT pg_backend_pid() AS pid', []);
          await db.knex.raw('SELECT pg_terminate_backend(?)', [backend!.pid]);
        };
      },
    },
  );
