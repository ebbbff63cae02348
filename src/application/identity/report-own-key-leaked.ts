import { keyViewAt, type KeyView } from '../../domain/identity/api-key.js';
import type { AgentPrincipal } from '../../domain/identity/principal.js';
import type { Clock } from '../../domain/shared/clock.port.js';
import type { RevokeApiKey } from '../admin/revoke-api-key.js';

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
