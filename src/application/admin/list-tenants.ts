import { livemodeOf, type Tenant } from '../../domain/identity/tenant.js';
import type { TenantDirectory } from '../../domain/identity/tenant-directory.port.js';
import type { Clock } from '../../domain/shared/clock.port.js';

/** What an operator sees of a tenant: never a secret or its hash. */
export interface TenantSummary {
  readonly tenantId: string;
  readonly name: string;
  readonly clientId: string;
  readonly currency: string;
  readonly createdAt: Date;
  /** False for a sandbox tenant. */
  readonly livemode: boolean;
  /** When a rotation's previous secret stops working; null when there is none (or it ended). */
  readonly previousSecretValidUntil: Date | null;
}

/** Every tenant, oldest first. */
export class ListTenants {
  constructor(
    private readonly tenants: TenantDirectory,
    private readonly clock: Clock,
  ) {}

  async execute(): Promise<TenantSummary[]> {
    const now = this.clock.now().getTime();
    return (await this.tenants.listTenants()).map((t: Tenant) => {
      const until = t.previousSecretValidUntil ?? null;
      return {
        tenantId: t.id,
        name: t.name,
        clientId: t.clientId,
        currency: t.currency,
        createdAt: t.createdAt,
        livemode: livemodeOf(t),
        previousSecretValidUntil: until !== null && (t.previousClientSecretHash ?? null) !== null && until.getTime() > now ? until : null,
      };
    });
  }
}
