import { clientContext, type RequestOrigin } from '../../domain/security-events/security-event.js';
import type { Clock } from '../../domain/shared/clock.port.js';
import { tokenRevokedEvent } from './token-revocation.js';
import type { Tenant } from '../../domain/identity/tenant.js';
import type { TokenRevocationList } from '../../domain/identity/token-revocation.port.js';
import type { TokenVerifier, VerifiedToken } from '../../domain/identity/token-verifier.port.js';
import { DomainError } from '../../domain/shared/errors.js';
import { revocationOf } from './token-revocation.js';

/**
 * RFC 7009 revocation by an authenticated client: a machine or user token of the client's own
 * tenant is refused from now on, everywhere, until it would have expired. Anything else (unknown,
 * forged, expired, another tenant's token) is left alone without saying so: the answer is the
 * same either way, so the endpoint cannot be used to test tokens.
 */
export class RevokeToken {
  constructor(
    private readonly verifier: TokenVerifier,
    private readonly revocations: TokenRevocationList,
    private readonly clock: Clock,
  ) {}

  /** `origin`: where the request came from, recorded with the `token.revoked` event. */
  async execute(client: Tenant, token: string, origin?: RequestOrigin): Promise<void> {
    let verified: VerifiedToken;
    try {
      verified = await this.verifier.inspect(token);
    } catch (err) {
      if (err instanceof DomainError && err.reason === 'invalid-token') return;
      throw err;
    }
    if (verified.principal.tenantId !== client.id) return;
    await this.revocations.revoke(
      revocationOf(verified),
      tokenRevokedEvent(verified, clientContext(client.clientId, origin), this.clock.now()),
    );
  }
}
