import type { KeyUsageStore } from '../../domain/identity/key-usage.port.js';
import { KnexStore } from './knex-store.js';

/**
 * Last use of keys on PostgreSQL, in `api_key_usage` (not `api_keys`, whose every write is
 * announced to every instance's key cache). One statement per batch; the stored time only
 * moves forward, so batches from several instances may arrive in any order.
 */
export class KnexKeyUsageStore extends KnexStore implements KeyUsageStore {
  async recordUses(uses: ReadonlyMap<string, Date>): Promise<void> {
    // Sorted so that concurrent batches from several instances lock rows in the same order.
    const entries = [...uses].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    if (entries.length === 0) return;
    const values = entries.map(() => '(?::text, ?::timestamptz)').join(', ');
    await this.knex.raw(
      `INSERT INTO api_key_usage (key_id, last_used_at)
       SELECT u.key_id, u.at FROM (VALUES ${values}) AS u(key_id, at) JOIN api_keys k ON k.id = u.key_id
       ON CONFLICT (key_id) DO UPDATE SET last_used_at = GREATEST(api_key_usage.last_used_at, EXCLUDED.last_used_at)`,
      entries.flatMap(([keyId, at]) => [keyId, at]),
    );
  }
}
