import type { AgentDirectory } from '../../domain/identity/agent-directory.port.js';
import type { AgentPrincipal } from '../../domain/identity/principal.js';
import { apiKeyContext, type RequestOrigin } from '../../domain/security-events/security-event.js';
import type { Clock } from '../../domain/shared/clock.port.js';
import { DomainError } from '../../domain/shared/errors.js';

/**
 * `DELETE /api/v1/keys/{keyId}`: revokes (reason `revoked`) a key the calling key created,
 * directly or through keys it created. Any other key — the caller itself, a sibling, another
 * agent's key, an unknown id — is `key-not-found` (404), so no key's existence is revealed.
 */
export class RevokeCreatedKey {
  constructor(
    private readonly directory: AgentDirectory,
    private readonly clock: Clock,
  ) {}

  async execute(principal: AgentPrincipal, keyId: string, origin?: RequestOrigin): Promise<void> {
    const revoked = await this.directory.revokeCreatedKey(principal.keyId, keyId, this.clock.now(), apiKeyContext(principal.keyId, origin));
    if (revoked === null || revoked.agentId !== principal.agentId) throw new DomainError('key-not-found');
  }
}
