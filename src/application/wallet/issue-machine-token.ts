import type { IssuedToken, TokenIssuer } from '../../domain/identity/token-issuer.port.js';
import type { AuthenticateClient, ClientAuthentication } from './authenticate-client.js';
import { bindingOrRefuse, type CheckDpopProof, type DpopRequestContext } from './check-dpop-proof.js';

/**
 * OAuth 2.0 client credentials: a tenant's backend trades its client authentication (secret or
 * `private_key_jwt`) for a machine token, bound to the key of its DPoP proof when it sends one
 * (and refused without one when the tenant requires DPoP).
 */
export class IssueMachineToken {
  constructor(
    private readonly authenticateClient: AuthenticateClient,
    private readonly issuer: TokenIssuer,
    private readonly dpop: CheckDpopProof | null = null,
  ) {}

  async execute(input: ClientAuthentication, dpop?: DpopRequestContext): Promise<IssuedToken> {
    const tenant = await this.authenticateClient.execute(input);
    const binding = await bindingOrRefuse(this.dpop, tenant, dpop);
    return this.issuer.issue({ kind: 'machine', tenantId: tenant.id, clientId: tenant.clientId }, binding);
  }
}
