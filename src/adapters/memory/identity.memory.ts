import type { Agent, AgentStatus, Channel } from '../../domain/identity/agent.js';
import type { AgentDirectory, NewAgent } from '../../domain/identity/agent-directory.port.js';
import type { AgentResolver, ResolvedKey } from '../../domain/identity/agent-resolver.port.js';
import type { ApiKeyRecord, RevokedReason } from '../../domain/identity/api-key.js';
import { DomainError } from '../../domain/shared/errors.js';
import type { ChangeSignal } from '../cache/change-signal.js';
import { apiKeyRevoked } from '../../domain/webhooks/events.js';
import type { MemoryOutbox } from './webhooks.memory.js';

/** Channels, agents and keys held in process memory, with the same rules as PostgreSQL. */
export class MemoryIdentityStore implements AgentDirectory, AgentResolver {
  private readonly channels = new Map<string, Channel>();
  private readonly agents = new Map<string, Agent>();
  private readonly keys = new Map<string, ApiKeyRecord>();
  private readonly keyIdByHash = new Map<string, string>();

  /** `signal` is told of every change, as PostgreSQL's trigger would announce it. */
  constructor(
    private readonly signal?: ChangeSignal,
    private readonly outbox?: MemoryOutbox,
  ) {}

  findByKeyHash(keyHash: string): Promise<ResolvedKey | null> {
    const keyId = this.keyIdByHash.get(keyHash);
    const key = keyId === undefined ? undefined : this.keys.get(keyId);
    if (key === undefined) return Promise.resolve(null);
    const agent = this.agents.get(key.agentId)!;
    const channel = this.channels.get(agent.channelCode)!;
    return Promise.resolve({ key, agent, channel });
  }

  async createChannel(channel: Channel): Promise<void> {
    if (this.channels.has(channel.code)) {
      throw new DomainError('channel-exists', 'conflict', `Channel ${channel.code} exists.`);
    }
    this.channels.set(channel.code, { ...channel });
    this.changed();
  }

  async findChannel(code: string): Promise<Channel | null> {
    return this.channels.get(code) ?? null;
  }

  async createAgent(agent: NewAgent): Promise<Agent> {
    if (!this.channels.has(agent.channelCode)) {
      throw new DomainError('channel-not-found', 'not-found', `No channel ${agent.channelCode}.`);
    }
    const created: Agent = { ...agent, entitlements: [...agent.entitlements], status: 'ACTIVE' };
    this.agents.set(agent.id, created);
    this.changed();
    return created;
  }

  async findAgent(agentId: string): Promise<Agent | null> {
    return this.agents.get(agentId) ?? null;
  }

  async findAgentsByChannel(channelCode: string): Promise<Agent[]> {
    return [...this.agents.values()]
      .filter((a) => a.channelCode === channelCode)
      .sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime() || (a.id < b.id ? -1 : 1));
  }

  async setAgentStatus(agentId: string, status: AgentStatus): Promise<Agent | null> {
    const agent = this.agents.get(agentId);
    if (agent === undefined) return null;
    const updated = { ...agent, status };
    this.agents.set(agentId, updated);
    this.changed();
    return updated;
  }

  async insertKey(key: ApiKeyRecord): Promise<void> {
    if (!this.agents.has(key.agentId)) throw new Error(`insertKey: no agent ${key.agentId}`);
    if (this.keyIdByHash.has(key.hash)) throw new Error('insertKey: duplicate key hash');
    this.keys.set(key.id, { ...key });
    this.keyIdByHash.set(key.hash, key.id);
    this.changed();
  }

  async findKey(keyId: string): Promise<ApiKeyRecord | null> {
    return this.keys.get(keyId) ?? null;
  }

  async revokeKey(keyId: string, reason: RevokedReason, at: Date): Promise<ApiKeyRecord | null> {
    const key = this.keys.get(keyId);
    if (key === undefined) return null;
    const updated: ApiKeyRecord = {
      ...key,
      status: 'REVOKED',
      revokedReason: key.status === 'ACTIVE' || reason === 'leaked' ? reason : key.revokedReason,
      revokedAt: key.revokedAt ?? at,
    };
    this.keys.set(keyId, updated);
    this.outbox?.record(apiKeyRevoked(key, updated, at));
    this.changed();
    return updated;
  }

  private changed(): void {
    this.signal?.emit();
  }
}
