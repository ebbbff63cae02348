import type { Agent, AgentStatus, Channel, Product } from '../../domain/identity/agent.js';
import type { ApiKeyRecord, KeyStatus, RevokedReason } from '../../domain/identity/api-key.js';

/** Row shapes of the identity tables and their mapping to domain values. */
export interface ChannelRow {
  code: string;
  name: string;
  currency: string;
  markup_bps: number;
  free_cancellation_hours: number;
  late_cancellation_fee_bps: number;
  max_hold_minutes: number;
}
export interface AgentRow {
  id: string;
  name: string;
  status: AgentStatus;
  channel_code: string;
  entitlements: string[];
  discount_bps: number;
  created_at: Date;
  livemode: boolean;
}
export interface KeyRow {
  id: string;
  agent_id: string;
  key_hash: string;
  prefix: string;
  status: KeyStatus;
  revoked_reason: RevokedReason | null;
  created_at: Date;
  expires_at: Date | null;
  revoked_at: Date | null;
  rolled_from_key_id: string | null;
  name: string | null;
  scopes: string[];
  allowed_ips: string[];
  created_by_key_id: string | null;
}

export const toChannel = (r: ChannelRow): Channel => ({
  code: r.code,
  name: r.name,
  currency: r.currency,
  markupBps: r.markup_bps,
  freeCancellationHours: r.free_cancellation_hours,
  lateCancellationFeeBps: r.late_cancellation_fee_bps,
  maxHoldMinutes: r.max_hold_minutes,
});

export const toAgent = (r: AgentRow): Agent => ({
  id: r.id,
  name: r.name,
  status: r.status,
  channelCode: r.channel_code,
  entitlements: r.entitlements as Product[],
  discountBps: r.discount_bps,
  createdAt: new Date(r.created_at),
  livemode: r.livemode,
});

export const toKey = (r: KeyRow): ApiKeyRecord => ({
  id: r.id,
  agentId: r.agent_id,
  hash: r.key_hash,
  prefix: r.prefix,
  status: r.status,
  revokedReason: r.revoked_reason,
  createdAt: new Date(r.created_at),
  expiresAt: r.expires_at === null ? null : new Date(r.expires_at),
  revokedAt: r.revoked_at === null ? null : new Date(r.revoked_at),
  rolledFromKeyId: r.rolled_from_key_id ?? null,
  name: r.name ?? null,
  scopes: r.scopes ?? ['*'],
  allowedIps: r.allowed_ips ?? [],
  createdByKeyId: r.created_by_key_id ?? null,
});

/** The columns of a key row. */
export const KEY_COLUMNS = [
  'id',
  'agent_id',
  'key_hash',
  'prefix',
  'status',
  'revoked_reason',
  'created_at',
  'expires_at',
  'revoked_at',
  'rolled_from_key_id',
  'name',
  'scopes',
  'allowed_ips',
  'created_by_key_id',
] as const;

/** A key as a row to insert. */
export const keyToRow = (key: ApiKeyRecord): KeyRow => ({
  id: key.id,
  agent_id: key.agentId,
  key_hash: key.hash,
  prefix: key.prefix,
  status: key.status,
  revoked_reason: key.revokedReason,
  created_at: key.createdAt,
  expires_at: key.expiresAt,
  revoked_at: key.revokedAt,
  rolled_from_key_id: key.rolledFromKeyId,
  name: key.name,
  scopes: [...key.scopes],
  allowed_ips: [...key.allowedIps],
  created_by_key_id: key.createdByKeyId,
});
