import { parseInvocation, runAdmin, type CliOutcome } from '../adapters/cli/admin.js';
import type { FolderOwnership } from '../adapters/knex/pglite-owner.js';
import { ADMIN_COMMANDS, adminUseCases } from './admin-commands.js';
import type { Service } from './service.js';

/**
 * Process entry point: `npm run --silent admin -- <command> [flags] [--json]`. On the embedded
 * database, a running service holds the folder: the command is then run by that service (over a
 * socket in the private folder, once the service proved it holds the folder's admin token), so its
 * effect is visible there at once.
 */
async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  // Help and mistakes in the call are answered before any configuration, database or service
  // code is loaded: they work anywhere, at once.
  const invocation = parseInvocation(argv, ADMIN_COMMANDS);
  if (invocation.kind === 'answer') {
    print(invocation.outcome);
    return;
  }
  const [{ askOwner, claimFolder, FolderInUse }, { loadConfig }, { createLogger }, { openService }] = await Promise.all([
    import('../adapters/knex/pglite-owner.js'),
    import('./config.js'),
    import('./logger.js'),
    import('./service.js'),
  ]);
  // Only serving instances deliver webhooks.
  const config = loadConfig({ ...process.env, WEBHOOK_WORKER: 'off' });
  const target = config.persistence.kind === 'database' ? config.persistence.target : null;
  let owner: FolderOwnership | null = null;
  let service: Service | null = null;
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
        service = await openService(config, log);
        return adminUseCases(service);
      }),
    );
  } finally {
    if (service !== null) await (service as Service).close();
    await owner?.release();
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
