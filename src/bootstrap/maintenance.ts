import { readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { BackupError, checkBackup, restoreBackup, writeBackup } from '../adapters/knex/backup.js';
import { openDatabase, type Database, type DatabaseTarget } from '../adapters/knex/database.js';
import { SECRETS_KEY_FILE } from '../adapters/knex/secrets-key.knex.js';
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
 * missing or empty (the caller holds the folder, so no service can open it meanwhile). The file is
 * read whole first; a folder the restore fails in is emptied again.
 */
export async function restoreInto(target: DatabaseTarget, file: string): Promise<Record<string, unknown>> {
  return refused('restore-refused', async () => {
    const folder = target.kind === 'pglite' ? target.dataDir : null;
    if (target.kind === 'pglite') {
      if (folder === null) throw new BackupError('restore needs an embedded folder (--data-dir) or DATABASE_URL');
      if ((await folderEntries(folder)).length > 0) {
        throw new BackupError(
          `the folder ${folder} is not empty; restore only into a new or empty folder (it may hold its ${SECRETS_KEY_FILE})`,
        );
      }
    }
    const header = await checkBackup(file);
    const db = await openDatabase(target);
    let done = false;
    try {
      const summary = await restoreBackup(db.knex, file, header);
      done = true;
      return { ...summary, into: folder ?? 'DATABASE_URL' };
    } finally {
      await db.close();
      if (!done && folder !== null) {
        for (const entry of await folderEntries(folder)) await rm(join(folder, entry), { recursive: true, force: true });
      }
    }
  });
}

/**
 * What a folder holds besides the lock socket of the command holding it and the secrets key file
 * (put there before a restore, so that the restored database's secrets open at its start).
 */
async function folderEntries(folder: string): Promise<string[]> {
  const entries = await readdir(folder).catch((err: NodeJS.ErrnoException) => {
    if (err.code === 'ENOENT') return [];
    throw err;
  });
  return entries.filter((e) => !/^lock-[0-9a-f]+\.sock$/.test(e) && e !== SECRETS_KEY_FILE);
}
