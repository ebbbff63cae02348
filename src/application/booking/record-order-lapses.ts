import type { OrderRepo } from '../../domain/booking/order-repo.port.js';
import type { Clock } from '../../domain/shared/clock.port.js';
import type { AgentAccounts } from '../../domain/billing/agent-accounts.port.js';

/** Orders recorded per batch: a batch is one short transaction, so requests never wait long behind it. */
export const LAPSE_BATCH = 500;
/**
 * A lapse is recorded this long after it happened: every read shows it from its instant, and a
 * confirm received just before a hold's expiry then finds the hold still stored ON_HOLD.
 */
export const LAPSE_GRACE_MS = 5_000;

/**
 * Records the holds and pending orders whose deadline has passed (EXPIRED; REJECTED with
 * `operator-timeout`) with their events, in bounded batches, until none is left or `maxBatches`
 * ran. Reads never wait for it: they apply the deadline themselves. Any number of instances may
 * run it at once; each transition is recorded once.
 */
export class RecordOrderLapses {
  constructor(
    private readonly orders: Pick<OrderRepo, 'recordLapses'>,
    private readonly clock: Clock,
    private readonly accounts: Pick<AgentAccounts, 'recordLapses'>,
  ) {}

  async execute(maxBatches = 100): Promise<number> {
    let recorded = 0;
    for (let batch = 0; batch < maxBatches; batch += 1) {
      const at = new Date(this.clock.now().getTime() - LAPSE_GRACE_MS);
      const n = await this.orders.recordLapses(at, LAPSE_BATCH);
      // The holds lapsed with their orders (true on read); this records what reads already show.
      const held = await this.accounts.recordLapses(at, LAPSE_BATCH);
      recorded += n;
      if (n < LAPSE_BATCH && held < LAPSE_BATCH) break;
    }
    return recorded;
  }
}
