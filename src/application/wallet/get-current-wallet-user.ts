import type { WalletUserPrincipal } from '../../domain/identity/principal.js';
import type { WalletUser } from '../../domain/identity/tenant.js';
import type { TenantDirectory } from '../../domain/identity/tenant-directory.port.js';
import { toWalletUserView, type WalletUserView } from './wallet-user-view.js';
import { userNotFound } from './wallet-user-lookup.js';

/** The person in the user token; nothing the caller sends can select another. */
export class GetCurrentWalletUser {
  constructor(private readonly tenants: TenantDirectory) {}

  /**
   * `alreadyRead`: the record the token check read moments ago in the same request; used only
   * when it is this very person, which saves a second read of the same row.
   */
  async execute(user: WalletUserPrincipal, alreadyRead?: WalletUser | null): Promise<WalletUserView> {
    const found =
      alreadyRead !== null && alreadyRead !== undefined && alreadyRead.id === user.userId && alreadyRead.tenantId === user.tenantId
        ? alreadyRead
        : await this.tenants.findUser(user.tenantId, user.userId);
    if (found === null) throw userNotFound();
    return toWalletUserView(found);
  }
}
