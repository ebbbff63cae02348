import type { AgentDirectory } from '../../domain/identity/agent-directory.port.js';
import { mintApiKey, type ApiKeyRecord, type NewKeyPolicy } from '../../domain/identity/api-key.js';
import type { IpRangeParser } from '../../domain/identity/ip-range.js';
import type { Clock } from '../../domain/shared/clock.port.js';
import type { IdGenerator } from '../../domain/shared/ids.port.js';
import type { RandomSource, SecretHasher } from '../../domain/shared/secrets.port.js';

/** A new key's own fields; its id is minted here. */
export type NewKeyFields = { agentId: string; createdAt: Date; expiresAt: Date | null } & NewKeyPolicy;

/**
 * What the two ways to make a fresh key (an operator's issue, a key's own create) share, written
 * once: their ports, and minting a key that rolls from none under a new `key_…` id.
 */
export abstract class KeyMint {
  constructor(
    protected readonly directory: AgentDirectory,
    private readonly ids: IdGenerator,
    private readonly random: RandomSource,
    private readonly hasher: SecretHasher,
    protected readonly clock: Clock,
    /** Reads `allowedIps` (the edge's parser). */
    protected readonly ipRanges: IpRangeParser,
  ) {}

  /** A new key's plaintext (shown once, stored nowhere) and its record. */
  protected mint(fields: NewKeyFields): { apiKey: string; record: ApiKeyRecord } {
    return mintApiKey(this.random, this.hasher, { id: this.ids.next('key'), rolledFromKeyId: null, ...fields });
  }
}
