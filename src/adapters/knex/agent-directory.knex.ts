import type { Knex } from 'knex';
import type { Agent, AgentStatus, Channel } from '../../domain/identity/agent.js';
import type { AgentDirectory, NewAgent } from '../../domain/identity/agent-directory.port.js';
import type { ApiKeyRecord, RevokedReason } from '../../domain/identity/api-key.js';
import { DomainError } from '../../domain/shared/errors.js';
import { isUniqueViolation, isForeignKeyViolation } from './pg-errors.js';
import { recordEvents } from './outbox.knex.js';
import { apiKeyRevoked } from '../../domain/webhooks/events.js';
import { toAgent, toChannel, toKey, type AgentRow, type ChannelRow, type KeyRow } from './identity-rows.js';

/** Operator writes on PostgreSQL; triggers announce each change to every instance. */
export class KnexAgentDirectory implements AgentDirectory {
  /**
   * `changed` is called after every committed write, so this instance's own cache forgets at
   * once instead of waiting for the database's notification to come back.
   */
  constructor(
    private readonly knex: Knex,
    private readonly changed: () => void = () => undefined,
  ) {}

  async createChannel(channel: Channel): Promise<void> {
    try {
      await this.knex('channels').insert({
        code: channel.code,
        name: channel.name,
        currency: channel.currency,
        markup_bps: channel.markupBps,
      });
      this.changed();
    } catch (err) {
      if (isUniqueViolation(err)) throw new DomainError('channel-exists', 'conflict', `Channel ${channel.code} exists.`);
      throw err;
    }
  }

  async findChannel(code: string): Promise<Channel | null> {
    const row = await this.knex<ChannelRow>('channels').where({ code }).first();
    return row === undefined ? null : toChannel(row);
  }

  async createAgent(agent: NewAgent): Promise<Agent> {
    try {
      const [row] = await this.knex<AgentRow>('agents')
        .insert({
          id: agent.id,
          name: agent.name,
          status: 'ACTIVE',
          channel_code: agent.channelCode,
          entitlements: [...agent.entitlements],
          discount_bps: agent.discountBps,
          created_at: agent.createdAt,
        })
        .returning('*');
      this.changed();
      return toAgent(row as AgentRow);
    } catch (err) {
      if (isForeignKeyViolation(err)) throw new DomainError('channel-not-found', 'not-found', `No channel ${agent.channelCode}.`);
      throw err;
    }
  }

  async findAgent(agentId: string): Promise<Agent | null> {
    const row = await this.knex<AgentRow>('agents').where({ id: agentId }).first();
    return row === undefined ? null : toAgent(row);
  }

  async findAgentsByChannel(channelCode: string): Promise<Agent[]> {
    const rows = await this.knex<AgentRow>('agents').where({ channel_code: channelCode }).orderBy([{ column: 'created_at' }, { column: 'id' }]);
    return rows.map(toAgent);
  }

  async setAgentStatus(agentId: string, status: AgentStatus): Promise<Agent | null> {
    const [row] = await this.knex<AgentRow>('agents')
      .where({ id: agentId })
      .update({ status, updated_at: this.knex.fn.now() } as Partial<AgentRow>)
      .returning('*');
    this.changed();
    return row === undefined ? null : toAgent(row as AgentRow);
  }

  async insertKey(key: ApiKeyRecord): Promise<void> {
    await this.knex<KeyRow>('api_keys').insert({
      id: key.id,
      agent_id: key.agentId,
      key_hash: key.hash,
      prefix: key.prefix,
      status: key.status,
      revoked_reason: key.revokedReason,
      created_at: key.createdAt,
      expires_at: key.expiresAt,
      revoked_at: key.revokedAt,
    });
    this.changed();
  }

  async findKey(keyId: string): Promise<ApiKeyRecord | null> {
    const row = await this.knex<KeyRow>('api_keys').where({ id: keyId }).first();
    return row === undefined ? null : toKey(row);
  }

  async revokeKey(keyId: string, reason: RevokedReason, at: Date): Promise<ApiKeyRecord | null> {
    const key = await this.knex.transaction(async (trx) => {
      const before = await trx<KeyRow>('api_keys').where({ id: keyId }).forUpdate().first();
      if (before === undefined) return null;
      // First revocation wins, except that `leaked` overrides any earlier reason.
      const [row] = await trx<KeyRow>('api_keys')
        .where({ id: keyId })
        .update({
          status: 'REVOKED',
          revoked_reason: trx.raw(`CASE WHEN status = 'ACTIVE' OR ? = 'leaked' THEN ? ELSE revoked_reason END`, [reason, reason]),
          revoked_at: trx.raw(`COALESCE(revoked_at, ?)`, [at]),
        } as never)
        .returning('*');
      const after = toKey(row as KeyRow);
      await recordKeyRevocation(trx, toKey(before), after, at);
      return after;
    });
    this.changed();
    return key;
  }
}

/**
 * The one call every path that revokes a key makes inside its transaction, with the key as it
 * was under the row lock and as it is now: records `api_key.revoked` when the revocation changed.
 */
export const recordKeyRevocation = (trx: Knex.Transaction, before: ApiKeyRecord, after: ApiKeyRecord, at: Date): Promise<void> =>
  recordEvents(trx, apiKeyRevoked(before, after, at));
