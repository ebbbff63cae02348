import { startTracing } from './tracing.js';

/**
 * Process entry point: `npm start` (`CLUSTER_WORKERS=N` for N workers on one port). Tracing, when
 * an OTLP endpoint is set, starts before the service's modules are loaded so that its
 * instrumentations see them; the service then flushes the last spans before it exits.
 */
async function main(): Promise<void> {
  const tracing = await startTracing();
  const { runServer } = await import('./run.js');
  await runServer(tracing === null ? {} : { beforeExit: () => tracing.shutdown() });
}

main().catch((err: unknown) => {
  process.stderr.write(`Failed to start: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
