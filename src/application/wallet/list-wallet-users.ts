import type { MachinePrincipal } from '../../domain/identity/principal.js';
import type { TenantDirectory } from '../../domain/identity/tenant-directory.port.js';
import { pageOf, pageRequest, type Page, type PageQuery } from '../../domain/shared/page.js';
import { toWalletUserView, type WalletUserView } from './wallet-user-view.js';

/** The calling tenant's users in creation order, one keyset page at a time. */
export class ListWalletUsers {
  constructor(private readonly tenants: TenantDirectory) {}

  async execute(machine: MachinePrincipal, query: PageQuery): Promise<Page<WalletUserView>> {
    const { after, limit } = pageRequest(query);
    const page = pageOf(await this.tenants.listUsers(machine.tenantId, after, limit + 1), limit);
    return { data: page.data.map(toWalletUserView), nextCursor: page.nextCursor };
  }
}
