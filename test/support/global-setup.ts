import { closeTestDatabase, databaseDescription, testDatabase } from './database.js';

/** Opens and migrates the test database once, before any test, and closes it after all. */
export async function mochaGlobalSetup(): Promise<void> {
  await testDatabase();
  process.stdout.write(`  database: ${databaseDescription()}\n`);
}

export async function mochaGlobalTeardown(): Promise<void> {
  await closeTestDatabase();
}
