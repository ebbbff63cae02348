import type { Logger } from 'pino';
import type { PurgeReport } from '../application/admin/purge-expired.js';

/**
 * Work the service does in the background: at start (off the start path), then every `everyMs`,
 * never in a request, one run at a time. A run that fails is logged and tried again at the next
 * tick. The timer never holds the process open; `stop` waits for a run under way.
 */
export class BackgroundJob {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<unknown> | null = null;

  constructor(
    /** What the log lines call it: `retention purge failed; will try again`. */
    private readonly name: string,
    private readonly everyMs: number,
    private readonly log: Logger,
    private readonly run: () => Promise<unknown>,
  ) {}

  start(): void {
    if (this.timer !== null) return;
    const tick = () => {
      if (this.timer === null) return; // stopped
      this.running ??= this.run()
        .catch((err: unknown) => this.log.warn({ err: { message: (err as Error).message } }, `${this.name} failed; will try again`))
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
}

/**
 * The retention purge (CONTRACT §5.4) as a background job. Each run is bounded batches, each its
 * own short statement, so every instance running it is safe: a batch skips rows another holds.
 */
export const retentionJob = (
  purge: { execute(options: { dryRun: false }): Promise<PurgeReport> },
  everyMs: number,
  log: Logger,
): BackgroundJob =>
  new BackgroundJob('retention purge', everyMs, log, async () => {
    const report = await purge.execute({ dryRun: false });
    if (report.webhookDeliveries + report.webhookEvents + report.idempotencyRecords + report.securityEvents > 0) {
      log.info({ ...report }, 'records past retention purged');
    }
  });

/**
 * The `api_key.expiring` notices (CONTRACT §5.1) as a background job. Every instance that sends
 * webhooks may run it: storage hands each key's notice to one of them, once. `sent` is called
 * when notices were recorded, so that their deliveries start at once.
 */
export const keyExpiryJob = (notices: { execute(): Promise<number> }, everyMs: number, log: Logger, sent: () => void): BackgroundJob =>
  new BackgroundJob('key expiry notices', everyMs, log, async () => {
    const count = await notices.execute();
    if (count > 0) {
      log.info({ sent: count }, 'key expiry notices recorded');
      sent();
    }
  });

/**
 * Records what lapsed at its deadline (holds and pending orders, CONTRACT §6.2, §6.3; wallet
 * authorizations, §6.6) with its events. Every read has shown the lapse since it happened; this
 * only writes it down, once across instances. `what` names them in the job's log.
 */
export const lapseJob = (
  what: string,
  lapses: { execute(): Promise<number> },
  everyMs: number,
  log: Logger,
  recorded: () => void,
): BackgroundJob =>
  new BackgroundJob(`${what} lapses`, everyMs, log, async () => {
    const count = await lapses.execute();
    if (count > 0) {
      log.info({ recorded: count }, `lapsed ${what} recorded`);
      recorded();
    }
  });
