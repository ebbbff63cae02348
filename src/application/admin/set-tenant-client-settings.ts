import { kidsOf, parseClientJwks, type ClientAuthMethod, type ClientSettingsChange } from '../../domain/identity/client-keys.js';
import { authMethodOf, dpopRequiredOf, type Tenant } from '../../domain/identity/tenant.js';
import type { TenantDirectory } from '../../domain/identity/tenant-directory.port.js';
import { DomainError } from '../../domain/shared/errors.js';
import { OPERATOR_CONTEXT } from '../../domain/security-events/security-event.js';

/** A tenant's OAuth client settings as an operator sees them (never a key's material). */
export interface TenantClientSettingsView {
  readonly tenantId: string;
  readonly clientId: string;
  readonly authMethod: ClientAuthMethod;
  readonly dpopRequired: boolean;
  /** How many public keys are registered, and their `kid`s (a key without one is not listed). */
  readonly jwksKeys: number;
  readonly kids: readonly string[];
}

export const clientSettingsView = (t: Tenant): TenantClientSettingsView => ({
  tenantId: t.id,
  clientId: t.clientId,
  authMethod: authMethodOf(t),
  dpopRequired: dpopRequiredOf(t),
  jwksKeys: t.clientJwks?.keys.length ?? 0,
  kids: kidsOf(t.clientJwks),
});

/**
 * An operator's changes to a tenant's OAuth client: the JWK Set its backend signs client
 * assertions and subject tokens with (public ES256, RS256 or Ed25519 keys only), whether it
 * authenticates with its secret or with `private_key_jwt`, and whether its tokens must be
 * DPoP-bound. `private_key_jwt` needs a registered JWK Set, so a tenant is never left without a
 * way to authenticate.
 */
export class SetTenantClientSettings {
  constructor(private readonly tenants: TenantDirectory) {}

  /** Registers (replaces) the tenant's JWK Set from its JSON text. */
  setJwks(tenantId: string, jwksText: string): Promise<TenantClientSettingsView> {
    return this.change(tenantId, { jwks: parseClientJwks(jwksText) });
  }

  async setAuthMethod(tenantId: string, method: ClientAuthMethod): Promise<TenantClientSettingsView> {
    if (method === 'private_key_jwt') {
      const tenant = await this.tenants.findTenant(tenantId);
      if (tenant === null) throw new DomainError('tenant-not-found');
      if ((tenant.clientJwks?.keys.length ?? 0) === 0) {
        throw new DomainError('invalid-request', {
          message: 'Register the tenant’s JWK Set (tenant set-jwks) before choosing private_key_jwt.',
        });
      }
    }
    return this.change(tenantId, { authMethod: method });
  }

  setDpopRequired(tenantId: string, required: boolean): Promise<TenantClientSettingsView> {
    return this.change(tenantId, { dpopRequired: required });
  }

  private async change(tenantId: string, change: ClientSettingsChange): Promise<TenantClientSettingsView> {
    const tenant = await this.tenants.updateClientSettings(tenantId, change, OPERATOR_CONTEXT);
    if (tenant === null) throw new DomainError('tenant-not-found');
    return clientSettingsView(tenant);
  }
}
