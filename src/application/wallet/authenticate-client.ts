import { clientSecretMatches, type Tenant } from '../../domain/identity/tenant.js';
import type { TenantDirectory } from '../../domain/identity/tenant-directory.port.js';
import type { Clock } from '../../domain/shared/clock.port.js';
import { DomainError } from '../../domain/shared/errors.js';
import type { SecretHasher } from '../../domain/shared/secrets.port.js';

/** The OAuth client credentials a tenant's backend presents (HTTP Basic or form body). */
export interface ClientCredentials {
  readonly clientId: string;
  readonly clientSecret: string;
}

/**
 * OAuth 2.0 client authentication for the token, revocation and introspection endpoints: the
 * tenant whose client id this is, when the secret is its current one or the one a rotation still
 * honours. Anything else is `invalid-client`, without saying which part was wrong.
 */
export class AuthenticateClient {
  constructor(
    private readonly tenants: TenantDirectory,
    private readonly hasher: SecretHasher,
    private readonly clock: Clock,
  ) {}

  async execute(input: ClientCredentials): Promise<Tenant> {
    const presented = this.hasher.hash(input.clientSecret);
    const tenant = input.clientId.length <= 128 ? await this.tenants.findTenantByClientId(input.clientId) : null;
    if (tenant === null || !clientSecretMatches(tenant, presented, this.clock.now())) {
      throw new DomainError('invalid-client');
    }
    return tenant;
  }
}
