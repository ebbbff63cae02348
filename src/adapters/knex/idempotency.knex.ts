import type { Knex } from 'knex';
import { rows } from './sql.js';
import {
  IDEMPOTENCY_STALE_AFTER_MS,
  type IdempotencyClaim,
  type IdempotencyRequest,
  type IdempotencyStore,
  type StoredResponse,
} from '../../domain/shared/idempotency.port.js';
import { keyInUse, keyReused } from '../../domain/shared/idempotency.js';

interface Row {
  fingerprint: string;
  state: 'IN_PROGRESS' | 'DONE';
  status: number | null;
  content_type: string | null;
  body: string | null;
}

/** Idempotency keys in PostgreSQL: one upsert decides the claim, whichever instance asks. */
export class KnexIdempotencyStore implements IdempotencyStore {
  constructor(private readonly knex: Knex) {}

  async claim(r: IdempotencyRequest, now: Date): Promise<IdempotencyClaim> {
    const staleBefore = new Date(now.getTime() - IDEMPOTENCY_STALE_AFTER_MS);
    // Inserts a new claim, or takes over a stale one of the same request; otherwise returns nothing.
    // Every write that carries a key pays for this statement and `complete`: both are run as
    // prepared statements without the query builder (see rows()).
    const claimed = await rows(
      this.knex,
      `INSERT INTO idempotency_keys (scope, key, fingerprint, state, created_at, claimed_at)
       VALUES ($1, $2, $3, 'IN_PROGRESS', $4, $4)
       ON CONFLICT (scope, key) DO UPDATE SET claimed_at = EXCLUDED.claimed_at
         WHERE idempotency_keys.state = 'IN_PROGRESS'
           AND idempotency_keys.claimed_at < $5
           AND idempotency_keys.fingerprint = EXCLUDED.fingerprint
       RETURNING scope`,
      [r.scope, r.key, r.fingerprint, now, staleBefore],
      'idempotency.claim',
    );
    if (claimed.length > 0) return { state: 'claimed' };
    const row = (await this.knex('idempotency_keys').where({ scope: r.scope, key: r.key }).first()) as Row | undefined;
    if (row === undefined) return this.claim(r, now); // released in between: try again
    if (row.fingerprint !== r.fingerprint) throw keyReused();
    if (row.state === 'IN_PROGRESS') throw keyInUse();
    return {
      state: 'replay',
      response: { status: row.status!, contentType: row.content_type!, body: row.body! },
    };
  }

  async complete(r: IdempotencyRequest, response: StoredResponse, now: Date): Promise<void> {
    await rows(
      this.knex,
      `UPDATE idempotency_keys SET state = 'DONE', status = $4, content_type = $5, body = $6, completed_at = $7
       WHERE scope = $1 AND key = $2 AND fingerprint = $3`,
      [r.scope, r.key, r.fingerprint, response.status, response.contentType, response.body, now],
      'idempotency.complete',
    );
  }

  async release(r: IdempotencyRequest): Promise<void> {
    await this.knex('idempotency_keys')
      .where({ scope: r.scope, key: r.key, fingerprint: r.fingerprint, state: 'IN_PROGRESS' })
      .delete();
  }

  async purge(before: Date): Promise<number> {
    // RETURNING rather than the affected-row count, which PGlite's Knex dialect does not report.
    const gone = await this.knex('idempotency_keys').where('created_at', '<', before).delete().returning('key');
    return gone.length;
  }
}
