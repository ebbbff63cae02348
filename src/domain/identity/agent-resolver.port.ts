import type { Agent, Channel } from './agent.js';
import type { ApiKeyRecord } from './api-key.js';

/** A stored key with the agent it belongs to and that agent's channel. */
export interface ResolvedKey {
  readonly key: ApiKeyRecord;
  readonly agent: Agent;
  readonly channel: Channel;
}

/** Resolves API keys to agents. Runs on every booking request. */
export interface AgentResolver {
  /**
   * Returns the key whose stored hash equals `keyHash`, with its agent and channel, whatever the
   * key's status or expiry (the caller applies the rules); null when no key has that hash.
   * Lookup is by equality on the hash, never a scan or a plaintext comparison.
   */
  findByKeyHash(keyHash: string): Promise<ResolvedKey | null>;
}
