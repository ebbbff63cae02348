import { constantTimeEqual } from '../../domain/identity/tenant.js';
import type { TenantDirectory } from '../../domain/identity/tenant-directory.port.js';
import type { IssuedToken, TokenIssuer } from '../../domain/identity/token-issuer.port.js';
import { DomainError } from '../../domain/shared/errors.js';
import type { SecretHasher } from '../../domain/shared/secrets.port.js';

/** OAuth 2.0 client credentials: a tenant's backend trades its client id and secret for a machine token. */
export class IssueMachineToken {
  constructor(
    private readonly tenants: TenantDirectory,
    private readonly hasher: SecretHasher,
    private readonly issuer: TokenIssuer,
  ) {}

  async execute(input: { clientId: string; clientSecret: string }): Promise<IssuedToken> {
    const presented = this.hasher.hash(input.clientSecret);
    const tenant = input.clientId.length <= 128 ? await this.tenants.findTenantByClientId(input.clientId) : null;
    if (tenant === null || !constantTimeEqual(presented, tenant.clientSecretHash)) {
      throw new DomainError('invalid-client', 'unauthenticated', 'Client authentication failed.');
    }
    return this.issuer.issue({ kind: 'machine', tenantId: tenant.id, clientId: tenant.clientId });
  }
}
