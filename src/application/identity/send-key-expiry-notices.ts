import type { KeyExpiryNotices } from '../../domain/identity/key-expiry.port.js';
import type { Clock } from '../../domain/shared/clock.port.js';

const DAY_MS = 86_400_000;

/** `KEY_EXPIRY_NOTICE_DAYS` unless set. */
export const DEFAULT_KEY_EXPIRY_NOTICE_DAYS = 7;

/**
 * Tells agents, once per key, that a key expires within `noticeDays` (`api_key.expiring` to the
 * webhook endpoints that subscribe to it). Run in the background by the instances that send
 * webhooks, in bounded batches.
 */
export class SendKeyExpiryNotices {
  constructor(
    private readonly notices: KeyExpiryNotices,
    private readonly clock: Clock,
    private readonly noticeDays: number = DEFAULT_KEY_EXPIRY_NOTICE_DAYS,
    private readonly batch = 200,
    private readonly maxBatches = 50,
  ) {}

  /** Returns how many notices were sent. */
  async execute(): Promise<number> {
    let sent = 0;
    for (let i = 0; i < this.maxBatches; i += 1) {
      const keys = await this.notices.sendDue(this.clock.now(), this.noticeDays * DAY_MS, this.batch);
      sent += keys.length;
      if (keys.length < this.batch) break;
    }
    return sent;
  }
}
