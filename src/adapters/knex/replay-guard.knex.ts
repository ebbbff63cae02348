import type { PurgeableReplayGuard } from '../../domain/identity/replay-guard.port.js';
import { USED_ONCE_TABLE } from './migrations/0019-oauth-client-keys.js';
import { rows } from './sql.js';
import { KnexStore } from './knex-store.js';

/**
 * One-time identifiers on PostgreSQL, shared by every instance: the primary key on
 * (namespace, jti) makes one `INSERT … ON CONFLICT DO NOTHING` the atomic test-and-set, so of
 * any number of concurrent uses exactly one inserts the row. A row whose expiry has passed but
 * that the purge has not removed yet still refuses its identifier, which is harmless: whatever
 * carried it has expired too.
 */
export class KnexReplayGuard extends KnexStore implements PurgeableReplayGuard {
  async useOnce(namespace: string, id: string, expiresAt: Date): Promise<boolean> {
    const inserted = await rows<{ jti: string }>(
      this.knex,
      `INSERT INTO ${USED_ONCE_TABLE} (namespace, jti, expires_at) VALUES ($1, $2, $3)
       ON CONFLICT (namespace, jti) DO NOTHING RETURNING jti`,
      [namespace, id, expiresAt],
      'used-once.insert',
    );
    return inserted.length === 1;
  }

  async purge(before: Date, batch: number): Promise<number> {
    // RETURNING rather than the affected-row count, which PGlite's Knex dialect does not report.
    const gone = await rows<{ jti: string }>(
      this.knex,
      `DELETE FROM ${USED_ONCE_TABLE} WHERE (namespace, jti) IN (
         SELECT namespace, jti FROM ${USED_ONCE_TABLE} WHERE expires_at < $1 LIMIT $2 FOR UPDATE SKIP LOCKED)
       RETURNING jti`,
      [before, batch],
      'used-once.purge',
    );
    return gone.length;
  }
}
