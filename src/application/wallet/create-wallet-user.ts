import { clientContext, type RequestOrigin } from '../../domain/security-events/security-event.js';
import type { MachinePrincipal } from '../../domain/identity/principal.js';
import type { CreateTenantUser, NewWalletUser } from '../admin/create-tenant-user.js';
import type { WalletUserView } from './wallet-user-view.js';

/** A tenant's backend creates one of its own wallet users: the tenant is the caller's, never an input. */
export class CreateWalletUser {
  constructor(private readonly create: CreateTenantUser) {}

  execute(machine: MachinePrincipal, input: NewWalletUser, origin?: RequestOrigin): Promise<WalletUserView> {
    return this.create.execute(machine.tenantId, input, clientContext(machine.clientId, origin));
  }
}
