import type { PasswordHasher } from '../../domain/identity/password-hasher.port.js';
import type { TenantDirectory } from '../../domain/identity/tenant-directory.port.js';
import type { RandomSource } from '../../domain/shared/secrets.port.js';
import type { CreateTenant } from './create-tenant.js';
import type { CreateTenantUser } from './create-tenant-user.js';
import type { ResetClientSecret } from './reset-client-secret.js';
import type { DemoContribution } from './seed-demo.js';

export const DEMO_TENANT = { name: 'Demo Wallet Tenant', currency: 'THB' } as const;
export const DEMO_WALLET_USER = { email: 'somchai@demo-wallet.example', externalUserRef: 'demo-user-1' } as const;

/**
 * The wallet's part of `demo seed`: a tenant with a user who can log in. Secrets cannot be shown
 * twice: on an existing demo it issues none (the ids only), unless `reset` asks for a fresh
 * client secret and a fresh password.
 */
export class SeedWalletDemo implements DemoContribution {
  constructor(
    private readonly tenants: TenantDirectory,
    private readonly createTenant: CreateTenant,
    private readonly resetSecret: ResetClientSecret,
    private readonly createUser: CreateTenantUser,
    private readonly passwords: PasswordHasher,
    private readonly random: RandomSource,
  ) {}

  async seed({ reset }: { readonly reset: boolean }): Promise<Record<string, unknown>> {
    const existing = await this.tenants.findTenantByName(DEMO_TENANT.name);
    const client: { tenantId: string; clientId: string; clientSecret?: string } =
      existing === null
        ? await this.createTenant.execute(DEMO_TENANT)
        : reset
          ? { clientId: existing.clientId, ...(await this.resetSecret.execute(existing.id)) }
          : { tenantId: existing.id, clientId: existing.clientId };
    let password = '';
    for (const b of this.random.bytes(12)) password += b.toString(16).padStart(2, '0');
    const user = await this.tenants.findUserByEmail(client.tenantId, DEMO_WALLET_USER.email);
    let userId: string;
    let issued = true;
    if (user === null) {
      userId = (await this.createUser.execute(client.tenantId, { ...DEMO_WALLET_USER, password })).id;
    } else {
      userId = user.id;
      if (reset) await this.tenants.setPasswordHash(client.tenantId, user.id, await this.passwords.hash(password));
      else issued = false;
    }
    return {
      wallet: {
        tenantId: client.tenantId,
        clientId: client.clientId,
        ...(client.clientSecret === undefined ? {} : { clientSecret: client.clientSecret }),
        user: { userId, email: DEMO_WALLET_USER.email, ...(issued ? { password } : {}) },
      },
    };
  }
}
