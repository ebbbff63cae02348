import type { AgentResolver, ResolvedKey } from '../../domain/identity/agent-resolver.port.js';
import { toAgent, toChannel, toKey, type AgentRow, type ChannelRow, type KeyRow } from './identity-rows.js';
import { KnexStore } from './knex-store.js';

/** Resolves a key hash with one indexed join. */
export class KnexAgentResolver extends KnexStore implements AgentResolver {
  async findByKeyHash(keyHash: string): Promise<ResolvedKey | null> {
    const row = await this.knex('api_keys as k')
      .join('agents as a', 'a.id', 'k.agent_id')
      .join('channels as c', 'c.code', 'a.channel_code')
      .where('k.key_hash', keyHash)
      .first(
        'k.id',
        'k.agent_id',
        'k.key_hash',
        'k.prefix',
        'k.status',
        'k.revoked_reason',
        'k.created_at',
        'k.expires_at',
        'k.revoked_at',
        'k.rolled_from_key_id',
        'k.name',
        'k.scopes',
        'k.allowed_ips',
        'k.created_by_key_id',
        'a.name as agent_name',
        'a.status as agent_status',
        'a.channel_code',
        'a.entitlements',
        'a.discount_bps',
        'a.created_at as agent_created_at',
        'a.livemode',
        'c.name as channel_name',
        'c.currency',
        'c.markup_bps',
        'c.free_cancellation_hours',
        'c.late_cancellation_fee_bps',
        'c.max_hold_minutes',
      );
    if (row === undefined) return null;
    return {
      key: toKey(row as KeyRow),
      agent: toAgent({
        id: row.agent_id,
        name: row.agent_name,
        status: row.agent_status,
        channel_code: row.channel_code,
        entitlements: row.entitlements,
        discount_bps: row.discount_bps,
        created_at: row.agent_created_at,
        livemode: row.livemode,
      } as AgentRow),
      channel: toChannel({
        code: row.channel_code,
        name: row.channel_name,
        currency: row.currency,
        markup_bps: row.markup_bps,
        free_cancellation_hours: row.free_cancellation_hours,
        late_cancellation_fee_bps: row.late_cancellation_fee_bps,
        max_hold_minutes: row.max_hold_minutes,
      } as ChannelRow),
    };
  }
}
