import type { MachinePrincipal } from '../../domain/identity/principal.js';
import type { TenantDirectory } from '../../domain/identity/tenant-directory.port.js';
import { toWalletUserView, type WalletUserView } from './wallet-user-view.js';
import { userNotFound } from './wallet-user-lookup.js';

/** One user of the calling tenant; another tenant's user is not found. */
export class GetWalletUser {
  constructor(private readonly tenants: TenantDirectory) {}

  async execute(machine: MachinePrincipal, userId: string): Promise<WalletUserView> {
    const user = await this.tenants.findUser(machine.tenantId, userId);
    if (user === null) throw userNotFound();
    return toWalletUserView(user);
  }
}
