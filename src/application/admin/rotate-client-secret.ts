import { OPERATOR_CONTEXT } from '../../domain/security-events/security-event.js';
import { generateClientSecret } from '../../domain/identity/tenant.js';
import type { TenantDirectory } from '../../domain/identity/tenant-directory.port.js';
import type { Clock } from '../../domain/shared/clock.port.js';
import { DomainError } from '../../domain/shared/errors.js';
import type { RandomSource, SecretHasher } from '../../domain/shared/secrets.port.js';

/** The longest overlap a secret rotation may keep the old secret for: 30 days. */
const MAX_SECRET_OVERLAP_SECONDS = 30 * 24 * 3600;

/**
 * Gives a tenant a new client secret (shown once) and keeps the current one valid for
 * `overlapSeconds` more, so its backend can switch without downtime; 0 ends the old one at once.
 * A secret still in an earlier rotation's overlap stops working now.
 */
export class RotateClientSecret {
  constructor(
    private readonly tenants: TenantDirectory,
    private readonly random: RandomSource,
    private readonly hasher: SecretHasher,
    private readonly clock: Clock,
  ) {}

  async execute(
    tenantId: string,
    overlapSeconds: number,
  ): Promise<{ tenantId: string; clientId: string; clientSecret: string; previousSecretValidUntil: Date | null }> {
    if (!Number.isInteger(overlapSeconds) || overlapSeconds < 0 || overlapSeconds > MAX_SECRET_OVERLAP_SECONDS) {
      throw new DomainError('invalid-request', { message: `The overlap must be 0-${MAX_SECRET_OVERLAP_SECONDS / 3600} hours.` });
    }
    const clientSecret = generateClientSecret(this.random);
    const until = overlapSeconds === 0 ? null : new Date(this.clock.now().getTime() + overlapSeconds * 1000);
    const tenant = await this.tenants.rotateClientSecret(tenantId, this.hasher.hash(clientSecret), until, OPERATOR_CONTEXT);
    if (tenant === null) throw new DomainError('tenant-not-found');
    return { tenantId: tenant.id, clientId: tenant.clientId, clientSecret, previousSecretValidUntil: until };
  }
}
