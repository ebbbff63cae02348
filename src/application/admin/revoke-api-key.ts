import type { AgentDirectory, RevokedKeys } from '../../domain/identity/agent-directory.port.js';
import type { RevokedReason } from '../../domain/identity/api-key.js';
import type { Clock } from '../../domain/shared/clock.port.js';
import { DomainError } from '../../domain/shared/errors.js';
import { OPERATOR_CONTEXT, type SecurityContext } from '../../domain/security-events/security-event.js';

/**
 * Revokes a key; `leaked` also revokes every key rolled from it or created by it, at any depth, and freezes
 * the orders made with any of them against cancellation. The one path every revocation takes
 * (operator and the key's own holder).
 */
export class RevokeApiKey {
  constructor(
    private readonly directory: AgentDirectory,
    private readonly clock: Clock,
  ) {}

  /** `context`: who revokes (the operator unless said otherwise), recorded in the trail. */
  async execute(keyId: string, reason: RevokedReason, context: SecurityContext = OPERATOR_CONTEXT): Promise<RevokedKeys> {
    const revoked = await this.directory.revokeKey(keyId, reason, this.clock.now(), context);
    if (revoked === null) throw new DomainError('key-not-found');
    return revoked;
  }
}
