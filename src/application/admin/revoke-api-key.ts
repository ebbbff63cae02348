import type { AgentDirectory, RevokedKeys } from '../../domain/identity/agent-directory.port.js';
import type { RevokedReason } from '../../domain/identity/api-key.js';
import type { Clock } from '../../domain/shared/clock.port.js';
import { DomainError } from '../../domain/shared/errors.js';

/**
 * Revokes a key; `leaked` also revokes every key rolled from it, directly or not, and freezes
 * the orders made with any of them against cancellation. The one path every revocation takes
 * (operator and the key's own holder).
 */
export class RevokeApiKey {
  constructor(
    private readonly directory: AgentDirectory,
    private readonly clock: Clock,
  ) {}

  async execute(keyId: string, reason: RevokedReason): Promise<RevokedKeys> {
    const revoked = await this.directory.revokeKey(keyId, reason, this.clock.now());
    if (revoked === null) throw new DomainError('key-not-found');
    return revoked;
  }
}
