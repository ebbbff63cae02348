import type { TenantDirectory } from '../../domain/identity/tenant-directory.port.js';
import { DomainError } from '../../domain/shared/errors.js';
import { type WalletUserSummary, summaryOf } from './wallet-user-summary.js';

/** Every wallet user of a tenant, in creation order; `tenant-not-found` for an unknown tenant. */
export class ListTenantUsers {
  constructor(private readonly tenants: TenantDirectory) {}

  async execute(tenantId: string): Promise<WalletUserSummary[]> {
    if ((await this.tenants.findTenant(tenantId)) === null) throw new DomainError('tenant-not-found');
    const out: WalletUserSummary[] = [];
    for (;;) {
      const last = out[out.length - 1];
      const page = await this.tenants.listUsers(tenantId, last === undefined ? null : { createdAt: last.createdAt, id: last.userId }, 500);
      out.push(...page.map(summaryOf));
      if (page.length < 500) return out;
    }
  }
}
