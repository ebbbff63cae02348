import type { Knex } from 'knex';
import { SESSION_TIMEOUTS } from './database.js';
import { jsonParam, rows } from './sql.js';
import { ambientTransaction } from './unit-of-work.knex.js';
import {
  IDEMPOTENCY_WAIT_MS,
  type IdempotencyClaim,
  type IdempotencyRequest,
  type IdempotencyStore,
  type StoredResponse,
} from '../../domain/shared/idempotency.port.js';
import { keyInUse, keyReused } from '../../domain/shared/idempotency.js';
import { KnexStore } from './knex-store.js';

interface Row {
  fingerprint: string;
  state: 'IN_PROGRESS' | 'DONE';
  status: number | null;
  content_type: string | null;
  body: string | null;
  headers: Record<string, string> | null;
}

const replayOf = (row: Row): StoredResponse => ({
  status: row.status!,
  contentType: row.content_type!,
  body: row.body!,
  ...(row.headers === null ? {} : { headers: row.headers }),
});

/** A key stored done with its answer in the same statement as its write (`pbw_ledger_write_attempt`, schema/functions). */
export interface KeyRecord {
  readonly request: IdempotencyRequest;
  readonly claimedAt: Date;
  readonly answer: { readonly response: StoredResponse; readonly completedAt: Date };
}

/** The record `pbw_idempotency_record` takes (JSON, by name). */
export const keyRecord = ({ request: r, claimedAt, answer }: KeyRecord): string =>
  jsonParam({
    scope: r.scope,
    key: r.key,
    fingerprint: r.fingerprint,
    status: answer.response.status,
    content_type: answer.response.contentType,
    body: answer.response.body,
    headers: answer.response.headers ?? null,
    claimed_at: claimedAt,
    completed_at: answer.completedAt,
  });

const COMPLETE = `UPDATE idempotency_keys SET state = 'DONE', status = $4, content_type = $5, body = $6, headers = $7, completed_at = $8
  WHERE scope = $1 AND key = $2 AND fingerprint = $3 RETURNING key`;

/** Nothing to do when a claim's unit of work ends: its transaction's end is the claim's. */
const ENDS_WITH_TRANSACTION = (): void => undefined;

/**
 * Idempotency keys in PostgreSQL (and embedded PGlite, alike). Only completed keys are ever
 * committed: a claim is the uncommitted insert of the key's row in the running unit of work's
 * transaction (`KnexUnitOfWork`), which commits together with the request's writes and the
 * stored response, in one commit on one connection. Whichever instance asks, PostgreSQL's unique
 * index decides: a duplicate's insert waits for the first transaction to end, then replays its
 * answer; a failed request, a crash or a lost connection rolls the claim back with the writes.
 */
export class KnexIdempotencyStore extends KnexStore implements IdempotencyStore {
  private readonly waitMs: number;

  constructor(pool: Knex, options: { waitMs?: number } = {}) {
    super(pool);
    this.waitMs = options.waitMs ?? IDEMPOTENCY_WAIT_MS;
  }

  async claim(r: IdempotencyRequest, now: Date): Promise<IdempotencyClaim> {
    const trx = this.transaction('claim');
    try {
      for (;;) {
        // How long the insert below may wait for another live claim of the key before giving up: the
        // session's lock_timeout unless told otherwise (saving a round trip on every claim).
        if (this.waitMs !== SESSION_TIMEOUTS.lock_timeout)
          await trx.raw(`SET LOCAL lock_timeout = ${Math.max(1, Math.round(this.waitMs))}`);
        // A new key: inserted, uncommitted, and so held. A row committed IN_PROGRESS can only be a
        // claim of an earlier design (committed at once, released by a timeout): taken over.
        const claimed = await rows(
          trx,
          `INSERT INTO idempotency_keys (scope, key, fingerprint, state, created_at, claimed_at)
           VALUES ($1, $2, $3, 'IN_PROGRESS', $4, $4)
           ON CONFLICT (scope, key) DO UPDATE SET claimed_at = EXCLUDED.claimed_at
             WHERE idempotency_keys.state = 'IN_PROGRESS' AND idempotency_keys.fingerprint = EXCLUDED.fingerprint
           RETURNING scope`,
          [r.scope, r.key, r.fingerprint, now],
          'idempotency.claim',
        );
        // The request's own writes run in this transaction; they wait for row locks as long as any.
        if (this.waitMs !== SESSION_TIMEOUTS.lock_timeout) await trx.raw(`SET LOCAL lock_timeout = ${SESSION_TIMEOUTS.lock_timeout}`);
        if (claimed.length > 0) return { state: 'claimed', end: ENDS_WITH_TRANSACTION };
        const [row] = await rows<Row>(
          trx,
          'SELECT fingerprint, state, status, content_type, body, headers FROM idempotency_keys WHERE scope = $1 AND key = $2',
          [r.scope, r.key],
          'idempotency.read',
        );
        if (row === undefined) continue; // purged in between: try again
        if (row.fingerprint !== r.fingerprint) throw keyReused();
        if (row.state !== 'DONE') throw keyInUse();
        return { state: 'replay', response: replayOf(row) };
      }
    } catch (err) {
      // lock_not_available: the other claim of this key outlived the wait.
      if ((err as { code?: string }).code === '55P03') throw keyInUse();
      throw err;
    }
  }

  async complete(r: IdempotencyRequest, response: StoredResponse, now: Date): Promise<void> {
    const done = await rows(
      this.transaction('complete'),
      COMPLETE,
      [r.scope, r.key, r.fingerprint, response.status, response.contentType, response.body, response.headers ?? null, now],
      'idempotency.complete',
    );
    if (done.length === 0) throw new Error(`idempotency key ${r.key} was not claimed in this unit of work`);
  }

  /** The running unit of work's transaction, which holds the claim. */
  private transaction(step: string): Knex.Transaction {
    const trx = ambientTransaction();
    if (trx === null) throw new Error(`idempotency ${step} outside a unit of work`);
    return trx;
  }

  async purge(before: Date, batch: number): Promise<number> {
    // RETURNING rather than the affected-row count, which PGlite's Knex dialect does not report.
    // A key a request holds (its claim's row lock) is skipped, not waited for.
    const gone = await rows<{ key: string }>(
      this.knex,
      `DELETE FROM idempotency_keys WHERE (scope, key) IN (
         SELECT scope, key FROM idempotency_keys WHERE created_at < $1
         LIMIT $2 FOR UPDATE SKIP LOCKED)
       RETURNING key`,
      [before, batch],
      'idempotency.purge',
    );
    return gone.length;
  }

  async countBefore(before: Date): Promise<number> {
    const [row] = await rows<{ n: number }>(
      this.knex,
      'SELECT count(*)::int AS n FROM idempotency_keys WHERE created_at < $1',
      [before],
      'idempotency.count-before',
    );
    return row?.n ?? 0;
  }
}
