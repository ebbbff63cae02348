import { OPERATOR_CONTEXT } from '../../domain/security-events/security-event.js';
import { generateClientSecret } from '../../domain/identity/tenant.js';
import type { TenantDirectory } from '../../domain/identity/tenant-directory.port.js';
import { DomainError } from '../../domain/shared/errors.js';
import type { RandomSource, SecretHasher } from '../../domain/shared/secrets.port.js';

/** Gives a tenant a new client secret (shown once); the old one stops working at once. */
export class ResetClientSecret {
  constructor(
    private readonly tenants: TenantDirectory,
    private readonly random: RandomSource,
    private readonly hasher: SecretHasher,
  ) {}

  async execute(tenantId: string): Promise<{ tenantId: string; clientSecret: string }> {
    const clientSecret = generateClientSecret(this.random);
    if (!(await this.tenants.replaceClientSecret(tenantId, this.hasher.hash(clientSecret), OPERATOR_CONTEXT))) {
      throw new DomainError('tenant-not-found');
    }
    return { tenantId, clientSecret };
  }
}
