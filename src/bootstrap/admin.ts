import { resolve } from 'node:path';
import { parseInvocation, runAdmin, type CliOutcome } from '../adapters/cli/admin.js';
import { UsageError } from '../adapters/cli/command.js';
import { MAINTENANCE_COMMANDS, RESTORE_COMMAND, type DatabaseMaintenance } from '../adapters/cli/maintenance-commands.js';
import type { FolderOwnership } from '../adapters/knex/pglite-owner.js';
import { ADMIN_COMMANDS, adminUseCases } from './admin-commands.js';
import type { ComposedCore } from './core-container.js';

/**
 * Process entry point: `npm run --silent admin -- <command> [flags] [--json]`. On the embedded
 * database, a running service holds the folder: the command is then run by that service (over a
 * socket in the private folder, once the service proved it holds the folder's admin token), so its
 * effect is visible there at once.
 */
async function main(): Promise<void> {
  // File names are this command's, relative to its own folder, wherever the command is run.
  const argv = withAbsolutePaths(process.argv.slice(2));
  // Help and mistakes in the call are answered before any configuration, database or service
  // code is loaded: they work anywhere, at once.
  const invocation = parseInvocation(argv, ADMIN_COMMANDS);
  if (invocation.kind === 'answer') {
    print(invocation.outcome);
    return;
  }
  if (invocation.command.name === RESTORE_COMMAND) {
    await restore(argv);
    return;
  }
  // The core and its database only: no HTTP service is composed to run a command.
  const [{ askOwner, claimFolder, FolderInUse }, { loadConfig }, { createLogger }, { openCore }] = await Promise.all([
    import('../adapters/knex/pglite-owner.js'),
    import('./config.js'),
    import('./logger.js'),
    import('./core-container.js'),
  ]);
  // Only serving instances deliver webhooks.
  const config = loadConfig({ ...process.env, WEBHOOK_WORKER: 'off' });
  const target = config.persistence.kind === 'database' ? config.persistence.target : null;
  let owner: FolderOwnership | null = null;
  let composed: ComposedCore | null = null;
  try {
    if (target?.kind === 'pglite' && target.dataDir !== null) {
      // A service that holds the folder but is still starting (or already stopping) does not
      // take commands yet: try again for a while, taking the folder if it is let go.
      for (const giveUpAt = Date.now() + 60_000; owner === null;) {
        try {
          owner = await claimFolder(target.dataDir, 'admin');
        } catch (err) {
          if (!(err instanceof FolderInUse) || err.holder?.role !== 'server') throw err;
          try {
            print(await askOwner(err.folder, argv));
            return;
          } catch (askErr) {
            const code = (askErr as NodeJS.ErrnoException).code;
            if ((code !== 'ENOENT' && code !== 'ECONNREFUSED') || Date.now() > giveUpAt) throw askErr;
            await new Promise((r) => setTimeout(r, 500));
          }
        }
      }
    }
    print(
      await runAdmin(argv, ADMIN_COMMANDS, async () => {
        // Logs go to stderr so that stdout carries only the command's output.
        const log = createLogger(process.env.LOG_LEVEL ?? 'warn', process.stderr);
        composed = await openCore(config, log);
        return adminUseCases(composed);
      }),
    );
  } finally {
    if (composed !== null) await (composed as ComposedCore).close();
    await owner?.release();
  }
}

/** `--in FILE` and `--out FILE` (or `--in=FILE`) made absolute, so that a running service that runs the command finds the same file. */
function withAbsolutePaths(argv: readonly string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < argv.length; i += 1) {
    const a = argv[i] as string;
    const inline = /^--(in|out)=(.+)$/.exec(a);
    if (inline !== null) out.push(`--${inline[1]}=${resolve(inline[2] as string)}`);
    else if ((a === '--in' || a === '--out') && i + 1 < argv.length && !(argv[i + 1] as string).startsWith('-')) {
      out.push(a, resolve(argv[i + 1] as string));
      i += 1;
    } else out.push(a);
  }
  return out;
}

/**
 * `restore`: into the empty database of DATABASE_URL, or an embedded folder that is missing or
 * empty and held by this command while it loads, so no service can open it half restored.
 */
async function restore(argv: string[]): Promise<void> {
  const [{ claimFolder }, { DEFAULT_PGLITE_DIR, loadConfig }, { restoreInto }] = await Promise.all([
    import('../adapters/knex/pglite-owner.js'),
    import('./config.js'),
    import('./maintenance.js'),
  ]);
  const config = loadConfig({ ...process.env, WEBHOOK_WORKER: 'off' });
  let owner: FolderOwnership | null = null;
  const maintenance: DatabaseMaintenance = {
    backup: () => Promise.reject(new UsageError('backup is a command of its own')),
    purge: () => Promise.reject(new UsageError('purge is a command of its own')),
    restore: async (file, { dataDir }) => {
      if (config.persistence.kind !== 'database') throw new UsageError('PERSISTENCE=memory keeps nothing to restore into');
      const target = config.persistence.target;
      if (target.kind === 'postgres') {
        if (dataDir !== undefined) throw new UsageError('--data-dir names an embedded folder; unset DATABASE_URL to restore into one');
        return restoreInto(target, file);
      }
      const folder = dataDir ?? resolve(target.dataDir ?? DEFAULT_PGLITE_DIR);
      owner = await claimFolder(folder, 'admin');
      return restoreInto({ kind: 'pglite', dataDir: owner.folder }, file);
    },
  };
  try {
    print(await runAdmin(argv, MAINTENANCE_COMMANDS, () => Promise.resolve({ maintenance })));
  } finally {
    await (owner as FolderOwnership | null)?.release();
  }
}

function print(outcome: CliOutcome): void {
  process.stdout.write(outcome.stdout);
  process.stderr.write(outcome.stderr);
  process.exitCode = outcome.exitCode;
}

main().catch((err: unknown) => {
  const message = err instanceof Error ? err.message : String(err);
  // With --json, even a failure before the command ran is one JSON object (on stderr).
  const json = process.argv.slice(2).includes('--json');
  process.stderr.write(json ? `${JSON.stringify({ error: { reason: 'internal-error', message } })}\n` : `error: ${message}\n`);
  process.exitCode = 1;
});
