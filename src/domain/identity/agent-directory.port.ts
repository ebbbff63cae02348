import type { Agent, AgentStatus, Channel, Product } from './agent.js';
import type { ApiKeyRecord, RevokedReason } from './api-key.js';

export interface NewAgent {
  readonly id: string;
  readonly name: string;
  readonly channelCode: string;
  readonly entitlements: readonly Product[];
  readonly discountBps: number;
  readonly createdAt: Date;
}

/**
 * Operator writes to channels, agents and keys. Every change here must reach the key
 * resolution caches of all running instances within a second.
 */
export interface AgentDirectory {
  /** Creates a channel; throws DomainError `channel-exists` when the code is taken. */
  createChannel(channel: Channel): Promise<void>;
  /** Returns the channel, or null. */
  findChannel(code: string): Promise<Channel | null>;
  /** Creates an agent; throws DomainError `channel-not-found` when the channel does not exist. */
  createAgent(agent: NewAgent): Promise<Agent>;
  /** Returns the agent, or null. */
  findAgent(agentId: string): Promise<Agent | null>;
  /** Returns the agents of a channel, oldest first; empty when none. */
  findAgentsByChannel(channelCode: string): Promise<Agent[]>;
  /** Sets the agent's status; returns the updated agent or null when there is no such agent. */
  setAgentStatus(agentId: string, status: AgentStatus): Promise<Agent | null>;
  /** Stores a newly issued key (hash only). */
  insertKey(key: ApiKeyRecord): Promise<void>;
  /** Returns the key record, or null. */
  findKey(keyId: string): Promise<ApiKeyRecord | null>;
  /**
   * Revokes the key. An already revoked key keeps its first revocation, except that `leaked`
   * always wins (a rotated key found leaked later becomes leaked). A change of revocation records
   * `api_key.revoked` (`apiKeyRevoked`) in the same transaction. Returns null for no such key.
   */
  revokeKey(keyId: string, reason: RevokedReason, at: Date): Promise<ApiKeyRecord | null>;
}
