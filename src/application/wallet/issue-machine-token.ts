import type { IssuedToken, TokenIssuer } from '../../domain/identity/token-issuer.port.js';
import type { AuthenticateClient, ClientCredentials } from './authenticate-client.js';

/** OAuth 2.0 client credentials: a tenant's backend trades its client id and secret for a machine token. */
export class IssueMachineToken {
  constructor(
    private readonly authenticateClient: AuthenticateClient,
    private readonly issuer: TokenIssuer,
  ) {}

  async execute(input: ClientCredentials): Promise<IssuedToken> {
    const tenant = await this.authenticateClient.execute(input);
    return this.issuer.issue({ kind: 'machine', tenantId: tenant.id, clientId: tenant.clientId });
  }
}
