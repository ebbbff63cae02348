import type { Logger } from 'pino';
import type { PurgeReport } from '../application/admin/purge-expired.js';

/**
 * Runs the retention purge (CONTRACT §5.4) in the background: at start (off the start path),
 * then every `everyMs`, never in a request. Each run is bounded batches, each its own short
 * statement, so every instance running it is safe: a batch skips rows another holds.
 */
export class RetentionSchedule {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<unknown> | null = null;

  constructor(
    private readonly purge: { execute(options: { dryRun: false }): Promise<PurgeReport> },
    private readonly everyMs: number,
    private readonly log: Logger,
  ) {}

  /** The timer never holds the process open. */
  start(): void {
    if (this.timer !== null) return;
    const tick = () => {
      if (this.timer === null) return; // stopped
      this.running ??= this.runOnce()
        .catch((err: unknown) => this.log.warn({ err: { message: (err as Error).message } }, 'retention purge failed; will try again'))
        .finally(() => (this.running = null));
    };
    this.timer = setInterval(tick, this.everyMs);
    this.timer.unref();
    setImmediate(tick);
  }

  async stop(): Promise<void> {
    if (this.timer !== null) clearInterval(this.timer);
    this.timer = null;
    await this.running;
  }

  async runOnce(): Promise<PurgeReport> {
    const report = await this.purge.execute({ dryRun: false });
    if (report.webhookDeliveries + report.webhookEvents + report.idempotencyRecords > 0) {
      this.log.info({ ...report }, 'records past retention purged');
    }
    return report;
  }
}
