import { runServer } from './run.js';

/** Process entry point: `npm start` (`CLUSTER_WORKERS=N` for N workers on one port). */
runServer().catch((err: unknown) => {
  process.stderr.write(`Failed to start: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
