import { clientContext, userContext, type RequestOrigin } from '../../domain/security-events/security-event.js';
import type { Clock } from '../../domain/shared/clock.port.js';
import { tokenRevokedEvent } from './token-revocation.js';
import type { TokenRevocationList } from '../../domain/identity/token-revocation.port.js';
import type { VerifiedToken } from '../../domain/identity/token-verifier.port.js';
import { revocationOf } from './token-revocation.js';

/** A wallet app signs its holder out: the user token that made the call is revoked. */
export class LogOut {
  constructor(
    private readonly revocations: TokenRevocationList,
    private readonly clock: Clock,
  ) {}

  async execute(token: VerifiedToken, origin?: RequestOrigin): Promise<void> {
    const p = token.principal;
    const context =
      p.kind === 'user'
        ? userContext({ userId: p.userId, amr: p.amr, actingClientId: p.act?.sub ?? null }, origin)
        : clientContext(p.clientId, origin);
    await this.revocations.revoke(revocationOf(token), tokenRevokedEvent(token, context, this.clock.now()));
  }
}
