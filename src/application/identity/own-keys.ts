import type { AgentDirectory } from '../../domain/identity/agent-directory.port.js';
import {
  DEFAULT_ROLL_OVERLAP_SECONDS,
  MAX_ROLL_OVERLAP_SECONDS,
  keyViewAt,
  mintApiKey,
  type KeyView,
} from '../../domain/identity/api-key.js';
import type { KeyUseRecorder } from '../../domain/identity/key-usage.port.js';
import type { AgentPrincipal } from '../../domain/identity/principal.js';
import type { Clock } from '../../domain/shared/clock.port.js';
import { conflict, invalid, notFound } from '../../domain/shared/errors.js';
import type { IdGenerator } from '../../domain/shared/ids.port.js';
import type { RandomSource, SecretHasher } from '../../domain/shared/secrets.port.js';
import type { RevokeApiKey } from '../admin/manage-keys.js';

/** An agent's keys as they stand now, with the most recent use known (stored or noted here). */
export class ListAgentKeys {
  constructor(
    private readonly directory: AgentDirectory,
    private readonly clock: Clock,
    private readonly usage?: KeyUseRecorder,
  ) {}

  /** The keys of `agentId`, oldest first; DomainError `agent-not-found` when there is no such agent. */
  async execute(agentId: string): Promise<KeyView[]> {
    const keys = await this.directory.listKeys(agentId);
    if (keys.length === 0 && (await this.directory.findAgent(agentId)) === null) {
      throw notFound('agent-not-found', `No agent ${agentId}.`);
    }
    const now = this.clock.now();
    return keys.map(({ key, lastUsedAt }) => keyViewAt(key, latest(lastUsedAt, this.usage?.lastNoted(key.id) ?? null), now));
  }
}

/** The calling agent's own keys (metadata only). */
export class ListOwnKeys {
  constructor(private readonly keys: ListAgentKeys) {}

  execute(principal: AgentPrincipal): Promise<KeyView[]> {
    return this.keys.execute(principal.agentId);
  }
}

/** What a roll gives back: the new key's plaintext (shown this once) and its metadata. */
export interface RolledKey {
  readonly apiKey: string;
  readonly key: KeyView;
  /** When the calling key stops working. */
  readonly previousKeyValidUntil: Date;
}

/**
 * Rolls the calling key, and only it: a new key for the same agent (with the same expiry), while
 * the calling key keeps working for the overlap and then counts as revoked (`rotated`). A key is
 * rolled once: rolling it again, or a key already revoked, is refused.
 */
export class RollOwnKey {
  constructor(
    private readonly directory: AgentDirectory,
    private readonly ids: IdGenerator,
    private readonly random: RandomSource,
    private readonly hasher: SecretHasher,
    private readonly clock: Clock,
  ) {}

  async execute(principal: AgentPrincipal, input: { overlapSeconds?: number | undefined }): Promise<RolledKey> {
    const overlap = input.overlapSeconds ?? DEFAULT_ROLL_OVERLAP_SECONDS;
    if (!Number.isInteger(overlap) || overlap < 0 || overlap > MAX_ROLL_OVERLAP_SECONDS) {
      throw invalid('invalid-request', `overlapSeconds must be a whole number from 0 to ${MAX_ROLL_OVERLAP_SECONDS}.`, {
        errors: [{ path: 'overlapSeconds', message: `must be an integer from 0 to ${MAX_ROLL_OVERLAP_SECONDS}` }],
      });
    }
    const now = this.clock.now();
    const { apiKey, record: next } = mintApiKey(this.random, this.hasher, {
      id: this.ids.next('key'),
      agentId: principal.agentId,
      createdAt: now,
      expiresAt: principal.key.expiresAt,
      rolledFromKeyId: principal.keyId,
    });
    const until = new Date(now.getTime() + overlap * 1000);
    const stored = await this.directory.rollKey(principal.keyId, next, until);
    if (stored === null) {
      throw conflict('key-already-rolled', 'This key has already been rolled; use the key it was rolled to.');
    }
    return { apiKey, key: keyViewAt(stored, null, now), previousKeyValidUntil: until };
  }
}

/** What a leak report revoked: the calling key and the keys rolled from it. */
export interface ReportedLeak {
  readonly key: KeyView;
  readonly rolledKeys: readonly KeyView[];
}

/**
 * The holder of a key reports it leaked: the calling key, and every key rolled from it, are
 * revoked as `leaked` at once, through the operator's own revocation (one path for both).
 */
export class ReportOwnKeyLeaked {
  constructor(
    private readonly revoke: RevokeApiKey,
    private readonly clock: Clock,
  ) {}

  async execute(principal: AgentPrincipal): Promise<ReportedLeak> {
    const revoked = await this.revoke.execute(principal.keyId, 'leaked');
    const now = this.clock.now();
    return { key: keyViewAt(revoked.key, null, now), rolledKeys: revoked.rolled.map((k) => keyViewAt(k, null, now)) };
  }
}

const latest = (a: Date | null, b: Date | null): Date | null => (a === null ? b : b === null ? a : a.getTime() >= b.getTime() ? a : b);
