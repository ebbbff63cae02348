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

export async function mochaGlobalTeardown(): Promise<void> {
  const url = await databaseUrl();
  if (url !== null) await dropWorkerDatabases(url);
  await closeTestDatabase();
}
