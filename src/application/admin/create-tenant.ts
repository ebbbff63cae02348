import { DEFAULT_TENANT_CURRENCY, generateClientSecret, TEST_CLIENT_ID_PREFIX } from '../../domain/identity/tenant.js';
import type { TenantDirectory } from '../../domain/identity/tenant-directory.port.js';
import type { Clock } from '../../domain/shared/clock.port.js';
import { DomainError } from '../../domain/shared/errors.js';
import type { IdGenerator } from '../../domain/shared/ids.port.js';
import { isCurrencyCode } from '../../domain/shared/money.js';
import type { RandomSource, SecretHasher } from '../../domain/shared/secrets.port.js';

/** Creates a wallet tenant with its OAuth client. The client secret is returned here once and stored nowhere. */
export class CreateTenant {
  constructor(
    private readonly tenants: TenantDirectory,
    private readonly ids: IdGenerator,
    private readonly random: RandomSource,
    private readonly hasher: SecretHasher,
    private readonly clock: Clock,
  ) {}

  /** With `test`, a sandbox tenant: its client id is `cli_test_…` and everything it owns is `livemode: false`. */
  async execute(input: {
    name: string;
    currency?: string;
    test?: boolean;
  }): Promise<{ tenantId: string; clientId: string; clientSecret: string }> {
    const currency = input.currency ?? DEFAULT_TENANT_CURRENCY;
    if (input.name.trim().length < 1 || input.name.length > 200)
      throw new DomainError('invalid-request', { message: 'Tenant name must be 1-200 characters.' });
    if (!isCurrencyCode(currency)) throw new DomainError('invalid-request', { message: 'Currency must be an ISO 4217 code such as THB.' });
    const clientSecret = generateClientSecret(this.random);
    const livemode = input.test !== true;
    const clientId = this.ids.next('cli');
    const tenant = {
      id: this.ids.next('tnt'),
      name: input.name,
      clientId: livemode ? clientId : TEST_CLIENT_ID_PREFIX + clientId.slice('cli_'.length),
      clientSecretHash: this.hasher.hash(clientSecret),
      currency,
      createdAt: this.clock.now(),
      livemode,
    };
    await this.tenants.createTenant(tenant);
    return { tenantId: tenant.id, clientId: tenant.clientId, clientSecret };
  }
}
