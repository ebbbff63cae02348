import { migrate, openDatabase, type Database } from '../../src/adapters/knex/database.js';

/**
 * The PostgreSQL the tests use: `DATABASE_URL` when set; else a container when a Docker engine
 * answers; else embedded PGlite. Opened and migrated once per test run.
 */
let shared: Promise<Database> | null = null;
let stopContainer: (() => Promise<unknown>) | null = null;
let description = '';

export function testDatabase(): Promise<Database> {
  shared ??= open();
  return shared;
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
  if (!url) {
    try {
      const { PostgreSqlContainer } = await import('@testcontainers/postgresql');
      const container = await new PostgreSqlContainer('postgres:16-alpine').start();
      stopContainer = () => container.stop();
      url = container.getConnectionUri();
    } catch {
      url = undefined;
    }
  }
  const db = url ? await openDatabase({ kind: 'postgres', url, poolMax: 20 }) : await openDatabase({ kind: 'pglite', dataDir: null });
  description = url ? `PostgreSQL (${url.replace(/\/\/[^@]*@/, '//')})` : 'embedded PGlite';
  await migrate(db);
  return db;
}

export const databaseDescription = (): string => description;

export async function closeTestDatabase(): Promise<void> {
  if (shared === null) return;
  const db = await shared;
  shared = null;
  await db.close();
  if (stopContainer) await stopContainer();
}
