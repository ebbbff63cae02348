import type { Logger } from 'pino';
import type { Clock } from '../../domain/shared/clock.port.js';
import type { PurgedDeliveries, WebhookStore } from '../../domain/webhooks/webhook-store.port.js';

/** How the purge runs. */
export interface WebhookRetentionOptions {
  /** `WEBHOOK_RETENTION_DAYS`: delivered and failed deliveries are kept this long after their last attempt. */
  readonly retentionDays: number;
  /** Time between runs. */
  readonly everyMs: number;
  /** Rows per statement. */
  readonly batch: number;
  /** Statements per run at most; what is left waits for the next run. */
  readonly maxBatchesPerRun: number;
}

const DAY_MS = 86_400_000;

/**
 * Purges delivered and failed webhook deliveries past their retention (CONTRACT §5.4), and the
 * events left without deliveries, in the background: in bounded batches, each its own short
 * statement, never in a request. Every instance running it is safe: a batch skips rows another
 * holds.
 */
export class WebhookRetention {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<unknown> | null = null;

  constructor(
    private readonly store: WebhookStore,
    private readonly clock: Clock,
    private readonly options: WebhookRetentionOptions,
    private readonly log: Logger,
  ) {}

  /** Runs once now (off the start path), then every `everyMs`; the timer never holds the process open. */
  start(): void {
    if (this.timer !== null) return;
    const tick = () => {
      if (this.timer === null) return; // stopped
      this.running ??= this.runOnce()
        .catch((err: unknown) => this.log.warn({ err: { message: (err as Error).message } }, 'webhook purge failed; will try again'))
        .finally(() => (this.running = null));
    };
    this.timer = setInterval(tick, this.options.everyMs);
    this.timer.unref();
    setImmediate(tick);
  }

  async stop(): Promise<void> {
    if (this.timer !== null) clearInterval(this.timer);
    this.timer = null;
    await this.running;
  }

  /** Purges what is past retention now, batch after batch, at most `maxBatchesPerRun` of them. */
  async runOnce(): Promise<PurgedDeliveries> {
    const olderThan = new Date(this.clock.now().getTime() - this.options.retentionDays * DAY_MS);
    let deliveries = 0;
    let events = 0;
    for (let i = 0; i < this.options.maxBatchesPerRun; i++) {
      const batch = await this.store.purgeDeliveries(olderThan, this.options.batch);
      deliveries += batch.deliveries;
      events += batch.events;
      if (batch.deliveries < this.options.batch && batch.events < this.options.batch) break;
    }
    if (deliveries + events > 0) this.log.info({ deliveries, events, olderThan }, 'webhook deliveries past retention purged');
    return { deliveries, events };
  }
}
