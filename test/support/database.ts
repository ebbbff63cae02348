import pg from 'pg';
import { migrate, openDatabase, type Database } from '../../src/adapters/knex/database.js';
import { KnexCatalogue } from '../../src/adapters/knex/catalogue.knex.js';
import { THAILAND_CATALOGUE } from '../../src/adapters/catalogue/thailand.js';

const STATE = Symbol.for('pbw.test-database');

/**
 * The PostgreSQL the tests use: `DATABASE_URL` when set; else a container when a Docker engine
 * answers; else embedded PGlite. Opened and migrated once per test process.
 *
 * The state lives on `globalThis`: a test that imports this module dynamically may get a second
 * copy of it (mocha's workers load test files as CommonJS, `import()` goes through the ESM
 * loader), and both copies must use the one database.
 */
interface TestDatabaseState {
  shared: Promise<Database> | null;
  stopContainer: (() => Promise<unknown>) | null;
  description: string;
}
const state: TestDatabaseState = ((globalThis as { [STATE]?: TestDatabaseState })[STATE] ??= {
  shared: null,
  stopContainer: null,
  description: '',
});

export function testDatabase(): Promise<Database> {
  state.shared ??= open();
  return state.shared;
}

/** What kind of database the run uses, for skip messages. */
export const databaseKind = async (): Promise<'postgres' | 'pglite'> => (await testDatabase()).target.kind;

/** The run's database URL, for tests that start processes; null on PGlite. */
export const databaseUrl = async (): Promise<string | null> => {
  const db = await testDatabase();
  return db.target.kind === 'postgres' ? db.target.url : null;
};

async function open(): Promise<Database> {
  let url = process.env.DATABASE_URL;
  // A mocha worker uses what the main process found: it does not look for Docker again.
  if (!url && process.env.MOCHA_WORKER_ID === undefined) {
    try {
      const { PostgreSqlContainer } = await import('@testcontainers/postgresql');
      const container = await new PostgreSqlContainer('postgres:16-alpine').start();
      state.stopContainer = () => container.stop();
      url = container.getConnectionUri();
    } catch {
      url = undefined;
    }
  }
  const worker = process.env.MOCHA_WORKER_ID;
  if (url && worker !== undefined) url = await workerDatabase(url, worker);
  const db = url ? await openDatabase({ kind: 'postgres', url, poolMax: 20 }) : await openDatabase({ kind: 'pglite', dataDir: null });
  state.description = url ? `PostgreSQL (${url.replace(/\/\/[^@]*@/, '//')})` : 'embedded PGlite';
  await migrate(db);
  await roomyDemoFleets(db);
  return db;
}

/** The vehicles per class and pickup hour the demo transfer operators get on the shared test database. */
export const TEST_DEMO_FLEET_VEHICLES = 10_000;

/**
 * The shipped catalogue with room for every test: the demo transfer operators' fleets (4 of each
 * class per pickup hour, as shipped) are raised, because tests running side by side, and runs one
 * after another on one database, book transfers in the same pickup hours; a reload of the
 * catalogue keeps a fleet once set. Tests of stock use operators of their own, and the shipped
 * figures are checked on fresh stores (the README tour, `demo seed` in memory).
 */
async function roomyDemoFleets(db: Database): Promise<void> {
  await new KnexCatalogue(db.knex).load(THAILAND_CATALOGUE);
  await db
    .knex('operator_fleets')
    .whereIn(
      'operator_code',
      THAILAND_CATALOGUE.fleets.map((f) => f.operatorCode),
    )
    .update({ vehicles: TEST_DEMO_FLEET_VEHICLES });
}

export const databaseDescription = (): string => state.description;

/** The name of mocha worker `worker`'s own database next to the run's `url`. */
const workerDatabaseName = (url: string, worker: string): string => `${new URL(url).pathname.slice(1)}_w${worker}`;

/**
 * A fresh database of its own for a mocha worker (`--parallel`), next to the run's one. Tests
 * create their own records, but some state is global by design, such as the queue of webhook
 * deliveries that every running service claims from: workers must not share it.
 */
async function workerDatabase(url: string, worker: string): Promise<string> {
  const name = workerDatabaseName(url, worker);
  await onServer(url, async (client) => {
    await client.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
    await client.query(`CREATE DATABASE "${name}"`);
  });
  const own = new URL(url);
  own.pathname = `/${name}`;
  // Processes the worker's tests start find it too.
  process.env.DATABASE_URL = own.toString();
  return own.toString();
}

/** Drops the databases the workers of a parallel run made next to `url`. */
export async function dropWorkerDatabases(url: string): Promise<void> {
  const prefix = workerDatabaseName(url, '');
  await onServer(url, async (client) => {
    const { rows } = await client.query<{ datname: string }>('SELECT datname FROM pg_database WHERE starts_with(datname, $1)', [prefix]);
    for (const { datname } of rows) await client.query(`DROP DATABASE IF EXISTS "${datname}" WITH (FORCE)`);
  });
}

async function onServer(url: string, run: (client: pg.Client) => Promise<void>): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await run(client);
  } finally {
    await client.end();
  }
}

export async function closeTestDatabase(): Promise<void> {
  if (state.shared === null) return;
  const db = await state.shared;
  state.shared = null;
  await db.close();
  if (state.stopContainer) await state.stopContainer();
}
