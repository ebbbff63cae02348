import type { SigningKeyRotation } from '../../domain/identity/signing-key-rotation.port.js';
import { DEFAULT_TENANT_CURRENCY, generateClientSecret, isDisabled, type Tenant, type WalletUser } from '../../domain/identity/tenant.js';
import type { TenantDirectory } from '../../domain/identity/tenant-directory.port.js';
import type { Clock } from '../../domain/shared/clock.port.js';
import { invalid, notFound } from '../../domain/shared/errors.js';
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

  async execute(input: { name: string; currency?: string }): Promise<{ tenantId: string; clientId: string; clientSecret: string }> {
    const currency = input.currency ?? DEFAULT_TENANT_CURRENCY;
    if (input.name.trim().length < 1 || input.name.length > 200) throw invalid('invalid-request', 'Tenant name must be 1-200 characters.');
    if (!isCurrencyCode(currency)) throw invalid('invalid-request', 'Currency must be an ISO 4217 code such as THB.');
    const clientSecret = generateClientSecret(this.random);
    const tenant = {
      id: this.ids.next('tnt'),
      name: input.name,
      clientId: this.ids.next('cli'),
      clientSecretHash: this.hasher.hash(clientSecret),
      currency,
      createdAt: this.clock.now(),
    };
    await this.tenants.createTenant(tenant);
    return { tenantId: tenant.id, clientId: tenant.clientId, clientSecret };
  }
}

/** Gives a tenant a new client secret (shown once); the old one stops working at once. */
export class ResetClientSecret {
  constructor(
    private readonly tenants: TenantDirectory,
    private readonly random: RandomSource,
    private readonly hasher: SecretHasher,
  ) {}

  async execute(tenantId: string): Promise<{ tenantId: string; clientSecret: string }> {
    const clientSecret = generateClientSecret(this.random);
    if (!(await this.tenants.replaceClientSecret(tenantId, this.hasher.hash(clientSecret)))) {
      throw notFound('tenant-not-found', `No tenant ${tenantId}.`);
    }
    return { tenantId, clientSecret };
  }
}

/** The longest overlap a secret rotation may keep the old secret for: 30 days. */
export const MAX_SECRET_OVERLAP_SECONDS = 30 * 24 * 3600;

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
      throw invalid('invalid-request', `The overlap must be 0-${MAX_SECRET_OVERLAP_SECONDS / 3600} hours.`);
    }
    const clientSecret = generateClientSecret(this.random);
    const until = overlapSeconds === 0 ? null : new Date(this.clock.now().getTime() + overlapSeconds * 1000);
    const tenant = await this.tenants.rotateClientSecret(tenantId, this.hasher.hash(clientSecret), until);
    if (tenant === null) throw notFound('tenant-not-found', `No tenant ${tenantId}.`);
    return { tenantId: tenant.id, clientId: tenant.clientId, clientSecret, previousSecretValidUntil: until };
  }
}

/** What an operator sees of a tenant: never a secret or its hash. */
export interface TenantSummary {
  readonly tenantId: string;
  readonly name: string;
  readonly clientId: string;
  readonly currency: string;
  readonly createdAt: Date;
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
        previousSecretValidUntil: until !== null && (t.previousClientSecretHash ?? null) !== null && until.getTime() > now ? until : null,
      };
    });
  }
}

/** What an operator sees of a wallet user: never the password hash. */
export interface WalletUserSummary {
  readonly userId: string;
  readonly tenantId: string;
  readonly externalUserRef: string;
  readonly email: string | null;
  readonly status: 'ACTIVE' | 'DISABLED';
  readonly disabledAt: Date | null;
  readonly createdAt: Date;
}

const summaryOf = (u: WalletUser): WalletUserSummary => ({
  userId: u.id,
  tenantId: u.tenantId,
  externalUserRef: u.externalUserRef,
  email: u.email,
  status: isDisabled(u) ? 'DISABLED' : 'ACTIVE',
  disabledAt: u.disabledAt ?? null,
  createdAt: u.createdAt,
});

/** Every wallet user of a tenant, in creation order; `tenant-not-found` for an unknown tenant. */
export class ListTenantUsers {
  constructor(private readonly tenants: TenantDirectory) {}

  async execute(tenantId: string): Promise<WalletUserSummary[]> {
    if ((await this.tenants.findTenant(tenantId)) === null) throw notFound('tenant-not-found', `No tenant ${tenantId}.`);
    const out: WalletUserSummary[] = [];
    for (;;) {
      const last = out[out.length - 1];
      const page = await this.tenants.listUsers(tenantId, last === undefined ? null : { createdAt: last.createdAt, id: last.userId }, 500);
      out.push(...page.map(summaryOf));
      if (page.length < 500) return out;
    }
  }
}

/**
 * An operator disables a wallet user (every token issued until now stops working on every
 * instance; login and delegated tokens are refused) or enables it again (tokens issued while or
 * before it was disabled stay dead: the person signs in again). Balances and history are untouched.
 */
export class SetWalletUserDisabled {
  constructor(
    private readonly tenants: TenantDirectory,
    private readonly clock: Clock,
  ) {}

  async execute(userId: string, disabled: boolean): Promise<WalletUserSummary> {
    const user = await this.tenants.setUserDisabled(userId, disabled ? this.clock.now() : null);
    if (user === null) throw notFound('user-not-found', `No wallet user ${userId}.`);
    return summaryOf(user);
  }
}

/** Starts signing wallet tokens with a new key; the old key verifies until its tokens expire. */
export class RotateSigningKey {
  constructor(private readonly keys: SigningKeyRotation) {}

  execute(): Promise<{ kid: string; previousKid: string | null }> {
    return this.keys.rotate();
  }
}
