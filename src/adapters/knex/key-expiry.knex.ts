import type { ApiKeyRecord } from '../../domain/identity/api-key.js';
import type { KeyExpiryNotices } from '../../domain/identity/key-expiry.port.js';
import { apiKeyExpiring } from '../../domain/webhooks/events.js';
import { KEY_COLUMNS, toKey, type KeyRow } from './identity-rows.js';
import { recordEvents } from './outbox.knex.js';
import { KnexStore } from './knex-store.js';

/**
 * Expiry notices on PostgreSQL. The claim is a row of `api_key_expiry_notices` inserted in the
 * transaction that records the event, after `FOR UPDATE SKIP LOCKED` on the keys: concurrent
 * instances take disjoint keys, and the primary key makes a second notice impossible. The keys'
 * own rows are locked, never written, so no identity change is announced (no cache is emptied).
 */
export class KnexKeyExpiryNotices extends KnexStore implements KeyExpiryNotices {
  async sendDue(now: Date, withinMs: number, limit: number): Promise<ApiKeyRecord[]> {
    return this.knex.transaction(async (trx) => {
      const rows = (await trx('api_keys as k')
        .where('k.status', 'ACTIVE')
        .whereNotNull('k.expires_at')
        .where('k.expires_at', '>', now)
        .where('k.expires_at', '<=', new Date(now.getTime() + withinMs))
        .whereNotExists((q) => q.select(trx.raw('1')).from('api_key_expiry_notices as n').whereRaw('n.key_id = k.id'))
        .orderBy('k.expires_at')
        .limit(limit)
        .forUpdate()
        .skipLocked()
        .select(...KEY_COLUMNS.map((c) => `k.${c}`))) as KeyRow[];
      if (rows.length === 0) return [];
      const claimed = (await trx('api_key_expiry_notices')
        .insert(rows.map((r) => ({ key_id: r.id, sent_at: now })))
        .onConflict('key_id')
        .ignore()
        .returning('key_id')) as Array<{ key_id: string }>;
      const ids = new Set(claimed.map((c) => c.key_id));
      const keys = rows.filter((r) => ids.has(r.id)).map(toKey);
      await recordEvents(
        trx,
        keys.map((k) => apiKeyExpiring(k, now)),
      );
      return keys;
    });
  }
}
