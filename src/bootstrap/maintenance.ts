import { readdir } from 'node:fs/promises';
import { BackupError, restoreBackup, writeBackup } from '../adapters/knex/backup.js';
import { openDatabase, type Database, type DatabaseTarget } from '../adapters/knex/database.js';
import { CommandRefused } from '../adapters/cli/command.js';
import type { DatabaseMaintenance } from '../adapters/cli/maintenance-commands.js';
import type { PurgeExpired } from '../application/admin/purge-expired.js';

const refused = async <T>(reason: string, work: () => Promise<T>): Promise<T> => {
  try {
    return await work();
  } catch (err) {
    if (err instanceof BackupError) throw new CommandRefused(reason, err.message);
    throw err;
  }
};

/** The maintenance commands of a running (or admin-opened) service, on its database. */
export const databaseMaintenance = (db: Database | null, purgeExpired: PurgeExpired): DatabaseMaintenance => ({
  purge: async (options) => ({ ...(await purgeExpired.execute(options)) }),
  backup: (file) =>
    refused('backup-refused', async () => {
      if (db === null) throw new BackupError('the service keeps its data in memory: there is no database to back up');
      return { ...(await writeBackup(db.knex, file)) };
    }),
  restore: () =>
    Promise.reject(
      new CommandRefused('restore-refused', 'a restore goes into an empty database or folder, never into the one a service is using'),
    ),
});

/**
 * Restores `file` into `target`: an empty PostgreSQL database, or an embedded folder that is
 * missing or empty (the caller holds the folder, so no service can open it meanwhile).
 */
export async function restoreInto(target: DatabaseTarget, file: string): Promise<Record<string, unknown>> {
  return refused('restore-refused', async () => {
    if (target.kind === 'pglite') {
      if (target.dataDir === null) throw new BackupError('restore needs an embedded folder (--data-dir) or DATABASE_URL');
      const entries = await readdir(target.dataDir).catch((err: NodeJS.ErrnoException) => {
        if (err.code === 'ENOENT') return [];
        throw err;
      });
      // The lock socket in it is the restoring command's own.
      if (entries.some((e) => !/^lock-[0-9a-f]+\.sock$/.test(e))) {
        throw new BackupError(`the folder ${target.dataDir} is not empty; restore only into a new or empty folder`);
      }
    }
    const db = await openDatabase(target);
    try {
      return { ...(await restoreBackup(db.knex, file)), into: target.kind === 'pglite' ? target.dataDir : 'DATABASE_URL' };
    } finally {
      await db.close();
    }
  });
}
