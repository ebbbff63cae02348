import { KnexIdempotencyStore } from '../../src/adapters/knex/idempotency.knex.js';
import { KnexLedger } from '../../src/adapters/knex/ledger.knex.js';
import { GroupCommitLedger } from '../../src/adapters/knex/ledger-group-commit.knex.js';
import { rows } from '../../src/adapters/knex/sql.js';
import { ambientTransaction, KnexUnitOfWork } from '../../src/adapters/knex/unit-of-work.knex.js';
import { databaseKind, testDatabase } from '../support/database.js';
import { ledgerTenant, topUpOf } from '../support/ledger-builders.js';
import { idempotencyContract } from 'partner-booking-wallet/testing';

for (const oneStatement of [false, true])
  idempotencyContract(
    oneStatement
      ? 'PostgreSQL (Knex), one ledger write sent with its key as one statement (group-commit ledger)'
      : 'PostgreSQL (Knex), in a unit of work',
    async ({ waitMs }) => {
      const db = await testDatabase();
      const knexLedger = new KnexLedger(db.knex);
      const groupCommit = new GroupCommitLedger(knexLedger, db.knex);
      const ledger = oneStatement ? groupCommit : knexLedger;
      const t = ledgerTenant();
      const u = t.newUser();
      return {
        // On PGlite too: the claim is the uncommitted insert in the unit of work's transaction.
        store: new KnexIdempotencyStore(db.knex, { waitMs }),
        unitOfWork: new KnexUnitOfWork(db.knex),
        effect: {
          write: async () => {
            await topUpOf(ledger, t, u, 1);
          },
          count: () => ledger.balanceOf(t.tenantId, u),
        },
        ...(oneStatement ? { oneStatement: groupCommit.oneStatementWrites() } : {}),
      };
    },
    {
      concurrent: async () => (await databaseKind()) === 'postgres',
      decidesAtEnd: oneStatement,
      rollsBack: true,
      // PGlite runs in this process: its one connection dies only with the process. A write of
      // one statement holds no connection while it runs.
      connectionKiller: async () => {
        const db = await testDatabase();
        if (db.target.kind !== 'postgres' || oneStatement) return null;
        return async () => {
          const [backend] = await rows<{ pid: number }>(ambientTransaction()!, 'SELECT pg_backend_pid() AS pid', []);
          await db.knex.raw('SELECT pg_terminate_backend(?)', [backend!.pid]);
        };
      },
    },
  );
