import { keyViewAt, type KeyView } from '../../domain/identity/api-key.js';
import type { AgentPrincipal } from '../../domain/identity/principal.js';
import type { Clock } from '../../domain/shared/clock.port.js';
import type { RevokeApiKey } from '../admin/revoke-api-key.js';
import { apiKeyContext, type RequestOrigin } from '../../domain/security-events/security-event.js';

/** What a leak report revoked: the calling key and the keys of its lineage (rolled from it or created by it, at any depth). */
export interface ReportedLeak {
  readonly key: KeyView;
  readonly rolledKeys: readonly KeyView[];
}

/**
 * The holder of a key reports it leaked: the calling key, and every key rolled from or created by it
 * (at any depth), are
 * revoked as `leaked` at once, through the operator's own revocation (one path for both).
 */
export class ReportOwnKeyLeaked {
  constructor(
    private readonly revoke: RevokeApiKey,
    private readonly clock: Clock,
  ) {}

  async execute(principal: AgentPrincipal, origin?: RequestOrigin): Promise<ReportedLeak> {
    const revoked = await this.revoke.execute(principal.keyId, 'leaked', apiKeyContext(principal.keyId, origin));
    const now = this.clock.now();
    return { key: keyViewAt(revoked.key, null, now), rolledKeys: revoked.rolled.map((k) => keyViewAt(k, null, now)) };
  }
}
