import type { Agent, AgentStatus, Channel, Product } from './agent.js';
import type { ApiKeyRecord, RevokedReason } from './api-key.js';
import type { SecurityContext } from '../security-events/security-event.js';

export interface NewAgent {
  readonly id: string;
  readonly name: string;
  readonly channelCode: string;
  readonly entitlements: readonly Product[];
  readonly discountBps: number;
  readonly createdAt: Date;
  /** False for a sandbox agent; live when absent. */
  readonly livemode?: boolean;
}

/** Settings of a channel that can be changed after it is created. */
export type ChannelChanges = Partial<Pick<Channel, 'markupBps' | 'freeCancellationHours' | 'lateCancellationFeeBps' | 'maxHoldMinutes'>>;

/** A key and when it was last used, or null when no use is recorded. */
export interface KeyWithUsage {
  readonly key: ApiKeyRecord;
  readonly lastUsedAt: Date | null;
}

/** What a revocation changed: the key itself, and the keys of its lineage that went with it. */
export interface RevokedKeys {
  readonly key: ApiKeyRecord;
  /**
   * Keys rolled from `key` or created by it, and every key rolled from or created by any of
   * those, at any depth, revoked with it (only for `leaked`).
   */
  readonly rolled: readonly ApiKeyRecord[];
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
  /** Every channel, by code. */
  listChannels(): Promise<Channel[]>;
  /** Changes the given settings of a channel; returns the updated channel, or null when there is none. */
  updateChannel(code: string, changes: ChannelChanges): Promise<Channel | null>;
  /** Creates an agent; throws DomainError `channel-not-found` when the channel does not exist. */
  createAgent(agent: NewAgent): Promise<Agent>;
  /** Returns the agent, or null. */
  findAgent(agentId: string): Promise<Agent | null>;
  /** Returns the agents of a channel, oldest first; empty when none. */
  findAgentsByChannel(channelCode: string): Promise<Agent[]>;
  /** Every agent of every channel, oldest first (ties by id); empty when none. */
  listAgents(): Promise<Agent[]>;
  /**
   * Moves the agent to another channel: from then on its key resolves to that channel (on every
   * instance within a second), so its later quotes are priced with it. Returns the updated agent,
   * or null when there is no such agent; throws DomainError `channel-not-found` when the channel
   * does not exist (and changes nothing).
   */
  setAgentChannel(agentId: string, channelCode: string): Promise<Agent | null>;
  /** Sets the agent's status; returns the updated agent or null when there is no such agent. */
  setAgentStatus(agentId: string, status: AgentStatus): Promise<Agent | null>;
  /**
   * Stores a newly issued key (hash only). The agent's keys are bounded by `checkKeyLimit`,
   * counted at `key.createdAt`: when the agent already holds MAX_LIVE_KEYS_PER_AGENT keys that
   * authenticate, throws DomainError `too-many-keys` and stores nothing. The count and the insert
   * are serialised per agent (across instances), so concurrent adds never pass the bound together.
   * Records `api_key.created` in the trail, in the same transaction, as done by `context`
   * (default: the system). A key made by a key (`createdByKeyId`) is made only while its creator
   * passes `requireLineageWriter` at `key.createdAt`, read under the lock its leak report takes:
   * otherwise throws DomainError `invalid-api-key` and stores nothing. Of a create and a leak
   * report of its creator, one happens entirely before the other (the key is revoked with the
   * lineage, or refused), across instances.
   */
  insertKey(key: ApiKeyRecord, context?: SecurityContext): Promise<void>;
  /** Returns the key record, or null. */
  findKey(keyId: string): Promise<ApiKeyRecord | null>;
  /** The agent's keys with when each was last used (as far as recorded), oldest first; empty when none. */
  listKeys(agentId: string): Promise<KeyWithUsage[]>;
  /**
   * Rolls a key, atomically: stores `next` (whose `rolledFromKeyId` names `fromKeyId`) and
   * schedules `fromKeyId`'s revocation as `rotated` at `until`. Only a key that is ACTIVE, with no
   * revocation stored, can be rolled: otherwise (revoked, already rolled, unknown, or another
   * roll of it winning a race) nothing is stored and null is returned; a key that no longer
   * passes `requireLineageWriter` at `next.createdAt` (revoked other than by a roll, expired, or
   * past its overlap), read under the lock its leak report takes, throws DomainError
   * `invalid-api-key` and nothing is stored. The agent's keys are
   * bounded as in `insertKey`, counted at `next.createdAt` with `fromKeyId` valid until `until`
   * (a roll with no overlap leaves the count as it was): past the bound, throws DomainError
   * `too-many-keys` and changes nothing. Records `api_key.rolled` and `api_key.revoked`
   * (`rotated`) in the trail in the same transaction.
   */
  rollKey(fromKeyId: string, next: ApiKeyRecord, until: Date, context?: SecurityContext): Promise<ApiKeyRecord | null>;
  /**
   * Revokes the key by the rule of `revokedKey` (an already revoked key keeps its first
   * revocation, except that `leaked` always wins; a rotation still ahead is brought forward).
   * With `leaked`, every key rolled from it or created by it, and every key rolled from or
   * created by any of those, at any depth, is revoked as leaked in the same transaction, since
   * whoever held the key could have made them; the trail records `api_key.leak_reported`. Each
   * key whose revocation changed records `api_key.revoked` (webhook outbox and trail) in the same
   * transaction. Returns null for no such key.
   */
  revokeKey(keyId: string, reason: RevokedReason, at: Date, context?: SecurityContext): Promise<RevokedKeys | null>;
  /**
   * Revokes `keyId` as `revoked` if `creatorKeyId` created it, directly or through keys it
   * created (a created key's rolls count as that key). Any other key — the creator itself, a
   * sibling, another agent's key, an unknown id — changes nothing and returns null. Checked and
   * revoked in one transaction, with the creator read under the lock its leak report takes: a
   * creator that no longer passes `requireLineageWriter` at `at` throws DomainError
   * `invalid-api-key` and changes nothing.
   */
  revokeCreatedKey(creatorKeyId: string, keyId: string, at: Date, context?: SecurityContext): Promise<ApiKeyRecord | null>;
}
