import type { AgentDirectory } from '../../domain/identity/agent-directory.port.js';
import {
  DEFAULT_ROLL_OVERLAP_SECONDS,
  MAX_ROLL_OVERLAP_SECONDS,
  keyViewAt,
  mintApiKey,
  type KeyView,
} from '../../domain/identity/api-key.js';
import type { AgentPrincipal } from '../../domain/identity/principal.js';
import type { Clock } from '../../domain/shared/clock.port.js';
import { DomainError } from '../../domain/shared/errors.js';
import type { IdGenerator } from '../../domain/shared/ids.port.js';
import type { RandomSource, SecretHasher } from '../../domain/shared/secrets.port.js';
import { apiKeyContext, type RequestOrigin } from '../../domain/security-events/security-event.js';

/** What a roll gives back: the new key's plaintext (shown this once) and its metadata. */
export interface RolledKey {
  readonly apiKey: string;
  readonly key: KeyView;
  /** When the calling key stops working: the overlap's end, or its own expiry if sooner. */
  readonly previousKeyValidUntil: Date;
}

/**
 * Rolls the calling key, and only it: a new key for the same agent (with the same expiry, scopes, allowlist and name), while
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

  async execute(principal: AgentPrincipal, input: { overlapSeconds?: number | undefined }, origin?: RequestOrigin): Promise<RolledKey> {
    const overlap = input.overlapSeconds ?? DEFAULT_ROLL_OVERLAP_SECONDS;
    if (!Number.isInteger(overlap) || overlap < 0 || overlap > MAX_ROLL_OVERLAP_SECONDS) {
      throw new DomainError('invalid-request', {
        message: `overlapSeconds must be a whole number from 0 to ${MAX_ROLL_OVERLAP_SECONDS}.`,
        details: {
          errors: [{ path: 'overlapSeconds', message: `must be an integer from 0 to ${MAX_ROLL_OVERLAP_SECONDS}` }],
        },
      });
    }
    const now = this.clock.now();
    const { apiKey, record: next } = mintApiKey(this.random, this.hasher, {
      id: this.ids.next('key'),
      agentId: principal.agentId,
      createdAt: now,
      expiresAt: principal.key.expiresAt,
      rolledFromKeyId: principal.keyId,
      scopes: principal.key.scopes,
      allowedIps: principal.key.allowedIps,
      livemode: principal.livemode,
    });
    // The calling key stops at the end of the overlap, or at its own expiry if that comes first.
    const overlapEnd = now.getTime() + overlap * 1000;
    const expiry = principal.key.expiresAt;
    const until = new Date(expiry === null ? overlapEnd : Math.min(overlapEnd, expiry.getTime()));
    const stored = await this.directory.rollKey(principal.keyId, next, until, apiKeyContext(principal.keyId, origin));
    if (stored === null) {
      throw new DomainError('key-already-rolled');
    }
    return { apiKey, key: keyViewAt(stored, null, now), previousKeyValidUntil: until };
  }
}
