import { closeTestDatabase, databaseDescription, databaseUrl, dropWorkerDatabases, testDatabase } from './database.js';

/**
 * Opens and migrates the test database once, before any test, and closes it after all. With
 * `--parallel` this runs in mocha's main process, and each worker makes a database of its own
 * next to this one (`test/support/database.ts`), dropped here at the end; a PostgreSQL container
 * started here reaches the workers through DATABASE_URL. On embedded PGlite each worker has its own.
 */
export async function mochaGlobalSetup(): Promise<void> {
  await testDatabase();
  const url = await databaseUrl();
  if (url !== null) process.env.DATABASE_URL ??= url;
  process.stdout.write(`  database: ${databaseDescription()}\n`);
}

/**
 * Root hooks: each test process opens its database (in a parallel worker, creates and migrates
 * it) before the first file's own hooks run, under a timeout of its own.
 */
export const mochaHooks = {
  async beforeAll(this: Mocha.Context): Promise<void> {
    this.timeout(120_000);
    await testDatabase();
  },
};

export async function mochaGlobalTeardown(): Promise<void> {
  const url = await databaseUrl();
  if (url !== null) await dropWorkerDatabases(url);
  await closeTestDatabase();
}
