/**
 * Ledger figures on PostgreSQL: payments per second with their p99 latency, and the latency of a
 * transaction listing page with 10 thousand and with 1 million transactions in the table.
 *
 *   DATABASE_URL=postgres://… npx tsx bench/payments.ts [--seconds 5] [--concurrency 16] [--payments-only]
 *
 * Runs in a schema of its own (`pbw_bench_ledger`), dropped at the end, so it never touches the
 * service's tables.
 */
import knexFactory from 'knex';
import { randomBytes } from 'node:crypto';
import { applyFunctions } from '../src/adapters/knex/schema/functions/index.js';
import { migrationSource } from '../src/adapters/knex/migrations/index.js';
import { KnexLedger } from '../src/adapters/knex/ledger.knex.js';
import '../src/adapters/knex/database.js';
import { transactionScope } from '../src/domain/wallet/scope.js';
import type { Initiator } from '../src/domain/wallet/transaction.js';

const url = process.env.DATABASE_URL;
if (!url) {
  console.error('DATABASE_URL is required (a PostgreSQL server; PGlite has one connection and would measure nothing useful).');
  process.exit(2);
}
const arg = (name: string, fallback: number): number => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : fallback;
};
const SECONDS = arg('seconds', 5);
const CONCURRENCY = arg('concurrency', 16);
const SCHEMA = 'pbw_bench_ledger';

const id = (p: string): string => `${p}_${randomBytes(13).toString('hex').toUpperCase()}`;
const pct = (sorted: number[], p: number): number => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
const ms = (n: number): string => `${n.toFixed(2)} ms`;

const admin = knexFactory({ client: 'pg', connection: url, pool: { min: 0, max: 1 } });
await admin.raw(`DROP SCHEMA IF EXISTS ${SCHEMA} CASCADE`);
await admin.raw(`CREATE SCHEMA ${SCHEMA}`);
await admin.destroy();

const knex = knexFactory({
  client: 'pg',
  connection: { connectionString: url, options: `-c search_path=${SCHEMA}` },
  pool: { min: CONCURRENCY, max: CONCURRENCY },
});
try {
  await knex.migrate.latest({ migrationSource, tableName: 'knex_migrations', schemaName: SCHEMA });
  await applyFunctions(knex);
  const ledger = new KnexLedger(knex);
  const tenantId = id('tnt');
  const clientId = id('cli');
  const machine: Initiator = { kind: 'machine', tenantId, clientId, userId: null, amr: null, act: null };
  const money = (amount: number) => ({ amount, currency: 'THB' });

  // Payments: CONCURRENCY workers, each paying from its own user, for SECONDS.
  const users = Array.from({ length: CONCURRENCY * 4 }, () => id('usr'));
  for (const u of users) {
    await ledger.topUp({
      id: id('txn'),
      tenantId,
      userId: u,
      amount: money(1_000_000_000),
      reference: 'bench',
      initiatedBy: machine,
      createdAt: new Date(),
    });
  }
  const latencies: number[] = [];
  const deadline = Date.now() + SECONDS * 1000;
  let n = 0;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async (_, w) => {
      while (Date.now() < deadline) {
        const userId = users[(n++ * CONCURRENCY + w) % users.length]!;
        const by: Initiator = { kind: 'user', tenantId, clientId, userId, amr: ['tenant_delegated'], act: { sub: clientId } };
        const t0 = performance.now();
        await ledger.pay({
          id: id('txn'),
          tenantId,
          userId,
          amount: money(100),
          reference: 'bench',
          description: null,
          initiatedBy: by,
          createdAt: new Date(),
        });
        latencies.push(performance.now() - t0);
      }
    }),
  );
  latencies.sort((a, b) => a - b);
  console.log(
    `payments (ledger, PostgreSQL, ${CONCURRENCY} in flight, ${SECONDS} s): ${(latencies.length / SECONDS).toFixed(0)}/s, p50 ${ms(pct(latencies, 50))}, p99 ${ms(pct(latencies, 99))}`,
  );

  if (!process.argv.includes('--payments-only')) await listing();
} finally {
  await knex.raw(`DROP SCHEMA IF EXISTS ${SCHEMA} CASCADE`).catch(() => undefined);
  await knex.destroy();
}

async function listing(): Promise<void> {
  const ledger = new KnexLedger(knex);
  // Listing latency: the newest page, and a page deep in the list, tenant-wide and for one person.
  const seedTenant = id('tnt');
  const person = 'usr_BENCHPERSON';
  const seed = async (rows: number): Promise<void> => {
    await knex.raw(
      `INSERT INTO ledger_transactions (id, tenant_id, type, amount, currency, user_id, reference, initiator_kind, initiator_client_id, created_at)
       SELECT 'txn_' || lpad(g::text, 26, '0'), ?, 'TOP_UP', 100, 'THB',
              CASE WHEN g % 100 = 0 THEN ? ELSE 'usr_' || (g % 5000)::text END, 'seed', 'machine', 'cli_seed',
              timestamptz '2026-01-01' + g * interval '1 second'
       FROM generate_series((SELECT COUNT(*) FROM ledger_transactions WHERE tenant_id = ?) + 1, ?) AS g`,
      [seedTenant, person, seedTenant, rows],
    );
    await knex.raw('ANALYZE ledger_transactions');
  };
  const measure = async (label: string): Promise<number> => {
    const machineScope = transactionScope({ kind: 'machine', tenantId: seedTenant, clientId: 'cli_seed' });
    const personScope = transactionScope({
      kind: 'user',
      tenantId: seedTenant,
      userId: person,
      clientId: 'cli_seed',
      amr: ['pwd'],
      act: null,
    });
    const runs: Record<string, number[]> = { tenant: [], person: [], 'tenant, PAYMENT only': [] };
    for (let i = 0; i < 50; i++) {
      for (const [name, scope, filter] of [
        ['tenant', machineScope, {}],
        ['person', personScope, {}],
        ['tenant, PAYMENT only', machineScope, { types: ['PAYMENT' as const] }],
      ] as const) {
        const t0 = performance.now();
        await ledger.list(scope, filter, null, 20);
        runs[name]!.push(performance.now() - t0);
      }
    }
    const out: string[] = [];
    for (const [name, xs] of Object.entries(runs)) {
      xs.sort((a, b) => a - b);
      out.push(`${name} p50 ${ms(pct(xs, 50))} p99 ${ms(pct(xs, 99))}`);
    }
    console.log(`GET /transactions page of 20 with ${label} rows: ${out.join('; ')}`);
    const tenant = runs.tenant!;
    return pct(tenant, 50);
  };
  await seed(10_000);
  const small = await measure('10 thousand');
  const t0 = Date.now();
  await seed(1_000_000);
  console.log(`(seeded 1 million rows in ${((Date.now() - t0) / 1000).toFixed(1)} s)`);
  const large = await measure('1 million');
  console.log(`tenant page p50 ratio 1M / 10k: ${(large / small).toFixed(2)}×`);
}
