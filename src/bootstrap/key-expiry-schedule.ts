import type { Logger } from 'pino';

/**
 * Sends the `api_key.expiring` notices (CONTRACT §5.1) in the background: at start (off the start
 * path), then every `everyMs`, never in a request. Every instance that sends webhooks may run it:
 * storage hands each key's notice to one of them, once.
 */
export class KeyExpirySchedule {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<unknown> | null = null;

  constructor(
    private readonly notices: { execute(): Promise<number> },
    private readonly everyMs: number,
    private readonly log: Logger,
    /** Called when notices were recorded, so that their deliveries start at once. */
    private readonly sent: () => void = () => undefined,
  ) {}

  /** The timer never holds the process open. */
  start(): void {
    if (this.timer !== null) return;
    const tick = () => {
      if (this.timer === null) return; // stopped
      this.running ??= this.runOnce()
        .catch((err: unknown) => this.log.warn({ err: { message: (err as Error).message } }, 'key expiry notices failed; will try again'))
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

  async runOnce(): Promise<number> {
    const sent = await this.notices.execute();
    if (sent > 0) {
      this.log.info({ sent }, 'key expiry notices recorded');
      this.sent();
    }
    return sent;
  }
}
