import { clientContext, walletUserEvent, type RequestOrigin } from '../../domain/security-events/security-event.js';
import type { SecurityEvents } from '../../domain/security-events/security-events.port.js';
import type { MachinePrincipal } from '../../domain/identity/principal.js';
import { isDisabled, isExternalUserRef } from '../../domain/identity/tenant.js';
import type { TenantDirectory } from '../../domain/identity/tenant-directory.port.js';
import type { IssuedToken, TokenIssuer } from '../../domain/identity/token-issuer.port.js';
import { AMR } from '../../domain/identity/wallet-token.js';
import type { Clock } from '../../domain/shared/clock.port.js';
import { DomainError } from '../../domain/shared/errors.js';
import type { IdGenerator } from '../../domain/shared/ids.port.js';
import { bindingOrRefuse, type CheckDpopProof, type DpopRequestContext, type ProvenKey } from './check-dpop-proof.js';

/**
 * A tenant's backend vouches for one of its users and gets a user token for them, creating the
 * user on first use. The token records the vouching (`amr: tenant_delegated`, `act.sub`). A
 * disabled user gets none (`user-disabled`: the tenant's backend may know its own users' state).
 */
export class IssueDelegatedToken {
  constructor(
    private readonly tenants: TenantDirectory,
    private readonly issuer: TokenIssuer,
    private readonly ids: IdGenerator,
    private readonly clock: Clock,
    private readonly trail: SecurityEvents,
    private readonly dpop: CheckDpopProof | null = null,
  ) {}

  /**
   * `dpop`: the request's DPoP proof, binding the user token to its key (refused without one
   * when the tenant requires DPoP); or, when the call itself came with a DPoP-bound machine token,
   * that token's key (`ProvenKey`), which the call's proof showed the caller holds. The token
   * exchange reaches this same path. `origin`: where the request came from, for the security trail.
   */
  async execute(
    machine: MachinePrincipal,
    externalUserRef: string,
    dpop?: DpopRequestContext | ProvenKey,
    origin?: RequestOrigin,
  ): Promise<IssuedToken & { userId: string }> {
    if (!isExternalUserRef(externalUserRef))
      throw new DomainError('invalid-request', { message: 'externalUserRef must be 1-128 of A-Z a-z 0-9 . _ : @ -.' });
    const tenant = await this.tenants.findTenant(machine.tenantId);
    if (tenant === null) throw new DomainError('tenant-not-found');
    const user = await this.tenants.ensureUser(
      {
        id: this.ids.next('usr'),
        tenantId: machine.tenantId,
        externalUserRef,
        email: null,
        passwordHash: null,
        createdAt: this.clock.now(),
      },
      clientContext(machine.clientId, origin),
    );
    if (isDisabled(user)) {
      throw new DomainError('user-disabled');
    }
    const binding = await bindingOrRefuse(this.dpop, tenant, dpop);
    const token = await this.issuer.issue(
      {
        kind: 'user',
        tenantId: machine.tenantId,
        userId: user.id,
        amr: [AMR.delegated],
        act: { sub: machine.clientId },
        clientId: machine.clientId,
      },
      binding,
    );
    // The client acted: it vouched for the user. Only the user's reference is kept, never the token.
    await this.trail.append(
      walletUserEvent('delegated_token.issued', user, clientContext(machine.clientId, origin), this.clock.now(), { externalUserRef }),
    );
    return { ...token, userId: user.id };
  }
}
