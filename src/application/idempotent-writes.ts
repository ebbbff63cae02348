import type { Clock } from '../domain/shared/clock.port.js';
import type { IdempotencyRequest, IdempotencyStore, StoredResponse } from '../domain/shared/idempotency.port.js';
import type { OneStatementWrites } from './one-statement-writes.port.js';
import type { UnitOfWork } from './unit-of-work.port.js';

/** An answer that is not stored: its unit of work is rolled back, and it is handed back as it is. */
class NotStored extends Error {
  constructor(readonly response: StoredResponse) {
    super('answer not stored');
  }
}

const isSuccess = (status: number): boolean => status >= 200 && status < 300;

/** What a keyed write answers: its response, and whether it is the stored answer of an earlier request. */
export interface IdempotentOutcome {
  readonly replayed: boolean;
  readonly response: StoredResponse;
}

/**
 * Writes made once per idempotency key: the one mechanism that makes a retried write apply at
 * most once. In one unit of work it claims the key, runs the write and stores its answer, so the
 * three commit together or not at all:
 * - the first request under a key runs `work`; a successful (2xx) answer is stored with it;
 * - a duplicate that arrives while it runs waits for it, then replays its answer (or, if the
 *   wait outlasts IDEMPOTENCY_WAIT_MS, `idempotency-key-in-use`);
 * - the same key with another request (fingerprint): `idempotency-key-reused`;
 * - an answer that is not a success, a thrown error, a crash or a lost connection rolls back the
 *   claim together with the writes: a retry runs again.
 *
 * A write that is one ledger top-up, payment or transfer (`oneLedgerWrite`) may instead go with
 * its key's answer as one statement, when the composition gives `OneStatementWrites`: the same
 * outcomes, without a transaction held across the request. Should the key turn out taken, nothing
 * was written, and the key is claimed as above: a replay, a refusal, or (when the other request
 * has meanwhile failed) `work` once more, in the unit.
 */
export class IdempotentWrites {
  constructor(
    private readonly unitOfWork: UnitOfWork,
    private readonly store: IdempotencyStore,
    private readonly clock: Clock,
    private readonly oneStatement: OneStatementWrites | null = null,
  ) {}

  async execute(
    request: IdempotencyRequest,
    work: () => Promise<StoredResponse>,
    options: { readonly oneLedgerWrite?: boolean } = {},
  ): Promise<IdempotentOutcome> {
    if (options.oneLedgerWrite !== true || this.oneStatement === null) return this.inUnit(request, work);
    const claimedAt = this.clock.now();
    const { value: response, write } = await this.oneStatement.prepare(work);
    if (!isSuccess(response.status)) return { replayed: false, response };
    if (write === null) return this.inUnit(request, async () => response);
    const sent = await write.commitWith(request, response, { claimedAt, completedAt: this.clock.now() });
    return sent === 'written' ? { replayed: false, response } : this.inUnit(request, work);
  }

  /** Claims the key, runs `work` and stores its answer, in one unit of work. */
  private async inUnit(request: IdempotencyRequest, work: () => Promise<StoredResponse>): Promise<IdempotentOutcome> {
    let end: (() => void) | null = null;
    try {
      return await this.unitOfWork.run(async () => {
        const claim = await this.store.claim(request, this.clock.now());
        if (claim.state === 'replay') return { replayed: true, response: claim.response };
        end = claim.end;
        const response = await work();
        if (!isSuccess(response.status)) throw new NotStored(response);
        await this.store.complete(request, response, this.clock.now());
        return { replayed: false, response };
      });
    } catch (err) {
      if (err instanceof NotStored) return { replayed: false, response: err.response };
      throw err;
    } finally {
      (end as (() => void) | null)?.();
    }
  }
}
