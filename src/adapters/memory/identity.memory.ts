import type { Agent, AgentStatus, Channel } from '../../domain/identity/agent.js';
import type { AgentDirectory, ChannelChanges, KeyWithUsage, NewAgent, RevokedKeys } from '../../domain/identity/agent-directory.port.js';
import type { AgentResolver, ResolvedKey } from '../../domain/identity/agent-resolver.port.js';
import { requireLineageWriter, type ApiKeyRecord, type RevokedReason } from '../../domain/identity/api-key.js';
import { keyAddition, keyRevocation, keyRoll, leakReportEvents, type KeyRevocation } from '../../domain/identity/key-changes.js';
import type { KeyUsageStore } from '../../domain/identity/key-usage.port.js';
import { DomainError } from '../../domain/shared/errors.js';
import type { ChangeSignal } from '../cache/change-signal.js';
import { apiKeyExpiring } from '../../domain/webhooks/events.js';
import type { KeyExpiryNotices } from '../../domain/identity/key-expiry.port.js';
import type { MemoryOutbox } from './webhooks.memory.js';
import type { MemorySecurityEvents } from './security-events.memory.js';
import type { SecurityContext } from '../../domain/security-events/security-event.js';

/** Channels, agents and keys held in process memory, with the same rules as PostgreSQL. */
export class MemoryIdentityStore implements AgentDirectory, AgentResolver, KeyUsageStore, KeyExpiryNotices {
  private readonly channels = new Map<string, Channel>();
  private readonly agents = new Map<string, Agent>();
  private readonly keys = new Map<string, ApiKeyRecord>();
  private readonly keyIdByHash = new Map<string, string>();
  private readonly lastUsed = new Map<string, Date>();
  private readonly noticed = new Set<string>();
  private leakListener: ((keyIds: readonly string[], at: Date) => void) | null = null;

  /** Whether the agent is live (false: a sandbox agent); an unknown one is live. */
  livemodeOf(agentId: string): boolean {
    return this.agents.get(agentId)?.livemode ?? true;
  }

  /**
   * What else a leak report changes in the same step: the memory order store releases the holds
   * the leaked keys made (`MemoryOrderRepo.releaseHoldsOf`), as PostgreSQL does in the report's
   * transaction.
   */
  onLeaked(listener: (keyIds: readonly string[], at: Date) => void): void {
    this.leakListener = listener;
  }

  /** `signal` is told of every change, as PostgreSQL's trigger would announce it. */
  constructor(
    private readonly signal?: ChangeSignal,
    private readonly outbox?: MemoryOutbox,
    private readonly trail?: MemorySecurityEvents,
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
      throw new DomainError('channel-exists');
    }
    this.channels.set(channel.code, { ...channel });
    this.changed();
  }

  async findChannel(code: string): Promise<Channel | null> {
    return this.channels.get(code) ?? null;
  }

  async listChannels(): Promise<Channel[]> {
    return [...this.channels.values()].sort((a, b) => (a.code < b.code ? -1 : a.code > b.code ? 1 : 0));
  }

  async updateChannel(code: string, changes: ChannelChanges): Promise<Channel | null> {
    const channel = this.channels.get(code);
    if (channel === undefined) return null;
    const updated: Channel = { ...channel, ...definedOf(changes) };
    this.channels.set(code, updated);
    this.changed();
    return updated;
  }

  async createAgent(agent: NewAgent): Promise<Agent> {
    if (!this.channels.has(agent.channelCode)) {
      throw new DomainError('channel-not-found');
    }
    const created: Agent = { ...agent, entitlements: [...agent.entitlements], status: 'ACTIVE', livemode: agent.livemode ?? true };
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

  async listAgents(): Promise<Agent[]> {
    return [...this.agents.values()].sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime() || (a.id < b.id ? -1 : 1));
  }

  async setAgentChannel(agentId: string, channelCode: string): Promise<Agent | null> {
    const agent = this.agents.get(agentId);
    if (agent === undefined) return null;
    if (!this.channels.has(channelCode)) throw new DomainError('channel-not-found');
    const updated = { ...agent, channelCode };
    this.agents.set(agentId, updated);
    this.changed();
    return updated;
  }

  async setAgentStatus(agentId: string, status: AgentStatus): Promise<Agent | null> {
    const agent = this.agents.get(agentId);
    if (agent === undefined) return null;
    const updated = { ...agent, status };
    this.agents.set(agentId, updated);
    this.changed();
    return updated;
  }

  async insertKey(key: ApiKeyRecord, context?: SecurityContext): Promise<void> {
    if (!this.agents.has(key.agentId)) throw new Error(`insertKey: no agent ${key.agentId}`);
    if (this.keyIdByHash.has(key.hash)) throw new Error('insertKey: duplicate key hash');
    // Checked, counted and stored with no await in between: nothing else runs in between, so a
    // leak report of the creator comes entirely before (refused here) or after (revokes this key).
    const creator = key.createdByKeyId === null ? null : (this.keys.get(key.createdByKeyId) ?? null);
    const recorded = keyAddition(key, this.keysOf(key.agentId), creator, context);
    this.keys.set(key.id, { ...key });
    this.keyIdByHash.set(key.hash, key.id);
    this.trail?.record(recorded);
    this.changed();
  }

  async findKey(keyId: string): Promise<ApiKeyRecord | null> {
    return this.keys.get(keyId) ?? null;
  }

  /** The key as it is now, without yielding: for a decision that must not interleave with a revocation. */
  keyNow(keyId: string): ApiKeyRecord | null {
    return this.keys.get(keyId) ?? null;
  }

  async listKeys(agentId: string): Promise<KeyWithUsage[]> {
    return [...this.keys.values()]
      .filter((k) => k.agentId === agentId)
      .sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime() || (a.id < b.id ? -1 : 1))
      .map((key) => ({ key, lastUsedAt: this.lastUsed.get(key.id) ?? null }));
  }

  async rollKey(fromKeyId: string, next: ApiKeyRecord, until: Date, context?: SecurityContext): Promise<ApiKeyRecord | null> {
    const roll = keyRoll(this.keys.get(fromKeyId) ?? null, next, until, this.keysOf(next.agentId), context);
    if (roll === null) return null;
    if (this.keyIdByHash.has(next.hash)) throw new Error('rollKey: duplicate key hash');
    this.keys.set(fromKeyId, roll.rotated);
    this.keys.set(next.id, roll.made);
    this.keyIdByHash.set(next.hash, next.id);
    this.trail?.record(roll.securityEvents);
    this.changed();
    return roll.made;
  }

  private keysOf(agentId: string): ApiKeyRecord[] {
    return [...this.keys.values()].filter((k) => k.agentId === agentId);
  }

  async revokeKey(keyId: string, reason: RevokedReason, at: Date, context?: SecurityContext): Promise<RevokedKeys | null> {
    const key = this.keys.get(keyId);
    if (key === undefined) return null;
    const root = this.revokeOne(key, reason, at, context);
    const rolled: ApiKeyRecord[] = [];
    if (reason === 'leaked') {
      const seen = new Set([keyId]);
      for (let parents = [keyId]; parents.length > 0;) {
        const children = this.childrenOf(parents).filter((k) => !seen.has(k.id));
        for (const child of children) {
          seen.add(child.id);
          rolled.push(this.revokeOne(child, reason, at, context).after);
        }
        parents = children.map((c) => c.id);
      }
      this.leakListener?.([keyId, ...rolled.map((k) => k.id)], at);
      this.trail?.record(leakReportEvents(root, rolled, at, context));
    }
    this.changed();
    return { key: root.after, rolled };
  }

  async revokeCreatedKey(creatorKeyId: string, keyId: string, at: Date, context?: SecurityContext): Promise<ApiKeyRecord | null> {
    requireLineageWriter(this.keys.get(creatorKeyId) ?? null, at);
    const made = new Set<string>();
    let level = [...this.keys.values()].filter((k) => k.createdByKeyId === creatorKeyId);
    while (level.length > 0) {
      for (const k of level) made.add(k.id);
      level = this.childrenOf(level.map((k) => k.id)).filter((k) => !made.has(k.id) && k.id !== creatorKeyId);
    }
    const key = this.keys.get(keyId);
    if (key === undefined || !made.has(keyId)) return null;
    const updated = this.revokeOne(key, 'revoked', at, context).after;
    this.changed();
    return updated;
  }

  /** Keys rolled from or created by any of `parents`, in id order. */
  private childrenOf(parents: readonly string[]): ApiKeyRecord[] {
    return [...this.keys.values()]
      .filter(
        (k) =>
          (k.rolledFromKeyId !== null && parents.includes(k.rolledFromKeyId)) ||
          (k.createdByKeyId !== null && parents.includes(k.createdByKeyId)),
      )
      .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  }

  /** Applies the revocation rule to one key, storing it and recording what changed. */
  private revokeOne(key: ApiKeyRecord, reason: RevokedReason, at: Date, context: SecurityContext | undefined): KeyRevocation {
    const revocation = keyRevocation(key, reason, at, context);
    this.keys.set(key.id, revocation.after);
    this.outbox?.record(revocation.events);
    this.trail?.record(revocation.securityEvents);
    return revocation;
  }

  async sendDue(now: Date, withinMs: number, limit: number): Promise<ApiKeyRecord[]> {
    const due = [...this.keys.values()]
      .filter(
        (k) =>
          k.status === 'ACTIVE' &&
          k.expiresAt !== null &&
          k.expiresAt.getTime() > now.getTime() &&
          k.expiresAt.getTime() <= now.getTime() + withinMs &&
          !this.noticed.has(k.id),
      )
      .sort((a, b) => a.expiresAt!.getTime() - b.expiresAt!.getTime())
      .slice(0, limit);
    for (const k of due) this.noticed.add(k.id);
    this.outbox?.record(due.map((k) => apiKeyExpiring(k, now)));
    return due;
  }

  async recordUses(uses: ReadonlyMap<string, Date>): Promise<void> {
    for (const [keyId, at] of uses) {
      if (!this.keys.has(keyId)) continue;
      const stored = this.lastUsed.get(keyId);
      if (stored === undefined || stored.getTime() < at.getTime()) this.lastUsed.set(keyId, at);
    }
  }

  private changed(): void {
    this.signal?.emit();
  }
}

/** The changes that name a value (an absent or undefined field leaves the setting as it is). */
const definedOf = (changes: ChannelChanges): ChannelChanges =>
  Object.fromEntries(Object.entries(changes).filter(([, v]) => v !== undefined)) as ChannelChanges;
