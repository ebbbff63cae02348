import { runAdmin } from '../adapters/cli/admin.js';
import { ADMIN_COMMANDS, adminUseCases } from './admin-commands.js';
import { loadConfig } from './config.js';
import { createLogger } from './logger.js';
import { openService, type Service } from './service.js';

/** Process entry point: `npm run --silent admin -- <command> [flags] [--json]`. */
async function main(): Promise<void> {
  let service: Service | null = null;
  try {
    const outcome = await runAdmin(process.argv.slice(2), ADMIN_COMMANDS, async () => {
      // Only serving instances deliver webhooks.
      const config = loadConfig({ ...process.env, WEBHOOK_WORKER: 'off' });
      // Logs go to stderr so that stdout carries only the command's output.
      const log = createLogger(process.env.LOG_LEVEL ?? 'warn', process.stderr);
      service = await openService(config, log);
      return adminUseCases(service);
    });
    process.stdout.write(outcome.stdout);
    process.stderr.write(outcome.stderr);
    process.exitCode = outcome.exitCode;
  } finally {
    if (service !== null) await (service as Service).close();
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`error: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exitCode = 1;
});
