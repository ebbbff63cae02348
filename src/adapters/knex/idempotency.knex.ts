import type { Knex } from 'knex';
import { SESSION_TIMEOUTS } from './database.js';
import { unitOfWorkOf } from './request-transaction.js';
import { rows } from './sql.js';
import {
  IDEMPOTENCY_WAIT_MS,
  type IdempotencyClaim,
  type IdempotencyLease,
  type IdempotencyRequest,
  type IdempotencyStore,
  type StoredResponse,
} from '../../domain/shared/idempotency.port.js';
import { keyInUse, keyReused } from '../../domain/shared/idempotency.js';
import { ProcessClaims } from '../memory/process-claims.js';

interface Row {
  fingerprint: string;
  state: 'IN_PROGRESS' | 'DONE';
  status: number | null;
  content_type: string | null;
  body: string | null;
  headers: Record<string, string> | null;
}

/** Where a running request's claim lives. */
export type ClaimHolding =
  /**
   * In an open transaction that has inserted the key's row: a duplicate's insert waits on the
   * unique index until that transaction ends, and a dead process or connection rolls it back at
   * once. Each running claim holds one connection of `claims`' pool.
   */
  | { readonly kind: 'transaction'; readonly claims: Knex }
  /** In this process (embedded PGlite: one process owns the database and has one connection). */
  | { readonly kind: 'process' };

const replayOf = (row: Row): StoredResponse => ({
  status: row.status!,
  contentType: row.content_type!,
  body: row.body!,
  ...(row.headers === null ? {} : { headers: row.headers }),
});

const COMPLETE = `UPDATE idempotency_keys SET state = 'DONE', status = $4, content_type = $5, body = $6, headers = $7, completed_at = $8
  WHERE scope = $1 AND key = $2 AND fingerprint = $3`;

/**
 * Idempotency keys in PostgreSQL. Only completed keys are ever committed: a claim is the
 * uncommitted insert of the key's row in a transaction that stays open while the request runs
 * and commits together with the stored response. The lease's unit of work is that transaction
 * (`request-transaction.ts`): writes made through it (the ledger's) commit in the same commit as
 * the response. Whichever instance asks, PostgreSQL's unique
 * index decides, and a crash releases the claim with its connection.
 */
export class KnexIdempotencyStore implements IdempotencyStore {
  private readonly holding: ClaimHolding;
  private readonly processClaims: ProcessClaims;
  private readonly waitMs: number;

  constructor(
    private readonly knex: Knex,
    options: { holding?: ClaimHolding; waitMs?: number } = {},
  ) {
    this.holding = options.holding ?? { kind: 'transaction', claims: knex };
    this.waitMs = options.waitMs ?? IDEMPOTENCY_WAIT_MS;
    this.processClaims = new ProcessClaims(this.waitMs);
  }

  async claim(r: IdempotencyRequest, now: Date): Promise<IdempotencyClaim> {
    return this.holding.kind === 'transaction' ? this.claimInTransaction(this.holding.claims, r, now) : this.claimInProcess(r, now);
  }

  private async claimInTransaction(claims: Knex, r: IdempotencyRequest, now: Date): Promise<IdempotencyClaim> {
    const trx = await claims.transaction();
    try {
      // How long the insert below may wait for another live claim of the key before giving up: the
      // session's lock_timeout unless told otherwise (saving a round trip on every claim).
      if (this.waitMs !== SESSION_TIMEOUTS.lock_timeout) await trx.raw(`SET LOCAL lock_timeout = ${Math.max(1, Math.round(this.waitMs))}`);
      // A new key: inserted, uncommitted, and so held. A row committed IN_PROGRESS can only be a
      // claim of the previous design (committed at once, released by a timeout): taken over.
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
      if (claimed.length > 0) {
        // The request's own writes run in this transaction; they wait for row locks as long as any.
        if (this.waitMs !== SESSION_TIMEOUTS.lock_timeout) await trx.raw(`SET LOCAL lock_timeout = ${SESSION_TIMEOUTS.lock_timeout}`);
        return { state: 'claimed', lease: this.transactionLease(trx, r) };
      }
      const [row] = await rows<Row>(
        trx,
        'SELECT fingerprint, state, status, content_type, body, headers FROM idempotency_keys WHERE scope = $1 AND key = $2',
        [r.scope, r.key],
        'idempotency.read',
      );
      await trx.commit();
      if (row === undefined) return this.claimInTransaction(claims, r, now); // purged in between: try again
      if (row.fingerprint !== r.fingerprint) throw keyReused();
      if (row.state !== 'DONE') throw keyInUse();
      return { state: 'replay', response: replayOf(row) };
    } catch (err) {
      if (!trx.isCompleted()) await trx.rollback().catch(() => undefined);
      // lock_not_available: the other claim of this key outlived the wait.
      if ((err as { code?: string }).code === '55P03') throw keyInUse();
      throw err;
    }
  }

  private transactionLease(trx: Knex.Transaction, r: IdempotencyRequest): IdempotencyLease {
    return {
      complete: async (response, now) => {
        try {
          await rows(
            trx,
            COMPLETE,
            [r.scope, r.key, r.fingerprint, response.status, response.contentType, response.body, response.headers ?? null, now],
            'idempotency.complete',
          );
          await trx.commit();
        } finally {
          if (!trx.isCompleted()) await trx.rollback().catch(() => undefined);
        }
      },
      release: async () => {
        if (!trx.isCompleted()) await trx.rollback();
      },
      unitOfWork: unitOfWorkOf(trx),
    };
  }

  private async claimInProcess(r: IdempotencyRequest, now: Date): Promise<IdempotencyClaim> {
    const free = await this.processClaims.acquire(`${r.scope}\u0000${r.key}`);
    try {
      const row = (await this.knex('idempotency_keys').where({ scope: r.scope, key: r.key }).first()) as Row | undefined;
      if (row !== undefined) {
        if (row.fingerprint !== r.fingerprint) throw keyReused();
        // Committed IN_PROGRESS: a claim of the previous design, whose process has ended.
        if (row.state === 'DONE') {
          free();
          return { state: 'replay', response: replayOf(row) };
        }
      }
    } catch (err) {
      free();
      throw err;
    }
    return {
      state: 'claimed',
      lease: {
        complete: async (response, completedAt) => {
          try {
            await this.knex.raw(
              `INSERT INTO idempotency_keys (scope, key, fingerprint, state, status, content_type, body, headers, created_at, claimed_at, completed_at)
               VALUES (?, ?, ?, 'DONE', ?, ?, ?, ?, ?, ?, ?)
               ON CONFLICT (scope, key) DO UPDATE SET fingerprint = EXCLUDED.fingerprint, state = 'DONE', status = EXCLUDED.status,
                 content_type = EXCLUDED.content_type, body = EXCLUDED.body, headers = EXCLUDED.headers, completed_at = EXCLUDED.completed_at`,
              [
                r.scope,
                r.key,
                r.fingerprint,
                response.status,
                response.contentType,
                response.body,
                response.headers === undefined ? null : JSON.stringify(response.headers),
                now,
                now,
                completedAt,
              ],
            );
          } finally {
            free();
          }
        },
        release: async () => free(),
      },
    };
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
