import { loadConfig } from './config.js';
import { createLogger } from './logger.js';
import { listen, openService } from './service.js';
import { TOKENS } from './tokens.js';
import { DEMO_CHANNEL } from '../application/admin/seed-demo.js';

/** Process entry point: `npm start`. */
async function main(): Promise<void> {
  const config = loadConfig();
  const log = createLogger(config.logLevel);
  const service = await openService(config, log);
  const embedded = config.persistence.kind === 'memory' || config.persistence.target.kind === 'pglite';
  const seedDemo = process.env.SEED_DEMO === 'on' || (process.env.SEED_DEMO !== 'off' && embedded);
  if (seedDemo) {
    const directory = service.container.get(TOKENS.AgentDirectory);
    if ((await directory.findChannel(DEMO_CHANNEL.code)) === null) {
      const creds = await service.container.get(TOKENS.SeedDemo).execute();
      // Shown once, on the terminal only: the plaintext key is stored nowhere.
      process.stdout.write(
        `\nDemo data seeded. These credentials are shown once:\n${JSON.stringify(creds, null, 2)}\n\n`,
      );
    }
  }
  const running = await listen(service, config, log);
  log.info({ url: running.url, persistence: embedded ? 'embedded' : 'postgres' }, 'listening');
  process.stdout.write(`Listening on ${running.url}\n`);
  const shutdown = (signal: string): void => {
    log.info({ signal }, 'shutting down');
    running
      .stop()
      .then(() => {
        log.flush();
        process.exit(0);
      })
      .catch((err: unknown) => {
        log.error({ err }, 'shutdown failed');
        process.exit(1);
      });
  };
  process.once('SIGTERM', () => shutdown('SIGTERM'));
  process.once('SIGINT', () => shutdown('SIGINT'));
}

main().catch((err: unknown) => {
  process.stderr.write(`Failed to start: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
