import { resolve } from 'node:path';
import { optional, required, type AdminCommand } from './command.js';

/** What the operator's maintenance commands do to the database as a whole. */
export interface DatabaseMaintenance {
  /** Writes a consistent copy of the database to a new file while the service serves. */
  backup(file: string): Promise<Record<string, unknown>>;
  /** Loads a backup into an empty database, or into an empty embedded folder (`dataDir`). */
  restore(file: string, options: { readonly dataDir?: string }): Promise<Record<string, unknown>>;
  /** Removes (or with `dryRun` counts) what is past its retention. */
  purge(options: { readonly dryRun: boolean }): Promise<Record<string, unknown>>;
}

/** The commands that work on the database as a whole rather than through the use cases. */
export const MAINTENANCE_COMMANDS: readonly AdminCommand<{ readonly maintenance: DatabaseMaintenance }>[] = [
  {
    name: 'backup',
    summary: 'write a consistent copy of the whole database to a new file, while the service serves',
    flags: {
      out: {
        value: 'FILE',
        required: true,
        description:
          'the file to create (gzip; mode 0600, as it holds every hash and sealed secret); an existing file is never overwritten',
      },
    },
    run: async (v, u) => u.maintenance.backup(resolve(required(v, 'out'))),
    output: 'fields',
  },
  {
    name: 'restore',
    summary: 'load a backup into an empty database (DATABASE_URL) or a new embedded folder',
    flags: {
      in: { value: 'FILE', required: true, description: 'a file written by the backup command' },
      'data-dir': {
        value: 'DIR',
        description: 'the embedded folder to restore into: missing or empty (default: PGLITE_DIR, else ./data); not with DATABASE_URL',
      },
    },
    run: async (v, u) => {
      const dataDir = optional(v, 'data-dir');
      return u.maintenance.restore(resolve(required(v, 'in')), dataDir === undefined ? {} : { dataDir: resolve(dataDir) });
    },
    output: 'fields',
  },
  {
    name: 'purge',
    summary: 'remove now what is past its retention (the service also does it every 10 minutes)',
    flags: {
      'dry-run': { description: 'count what would be removed, remove nothing' },
    },
    run: async (v, u) => u.maintenance.purge({ dryRun: v['dry-run'] === true }),
    output: 'fields',
  },
];

/** The command that opens its target database itself, never through a running service. */
export const RESTORE_COMMAND = 'restore';
