import {
  SYSTEM_CONTEXT,
  clientJwksUpdated,
  clientSecretRotated,
  userDisabledEvent,
  walletUserCreatedEvent,
  type SecurityContext,
} from '../../domain/security-events/security-event.js';
import { recordSecurityEvents } from './security-events.knex.js';
import { walletUserCreated } from '../../domain/webhooks/events.js';
import { eventsJson } from './outbox.knex.js';
import type { ClientAuthMethod, ClientJwkSet, ClientSettingsChange } from '../../domain/identity/client-keys.js';
import type { Tenant, WalletUser } from '../../domain/identity/tenant.js';
import type { TenantDirectory } from '../../domain/identity/tenant-directory.port.js';
import { DomainError } from '../../domain/shared/errors.js';
import type { Cursor } from '../../domain/shared/page.js';
import { isForeignKeyViolation, isUniqueViolation } from './pg-errors.js';
import { KnexStore } from './knex-store.js';

interface TenantRow {
  id: string;
  name: string;
  client_id: string;
  client_secret_hash: string;
  currency: string;
  created_at: Date;
  previous_client_secret_hash?: string | null;
  previous_secret_valid_until?: Date | null;
  client_jwks?: ClientJwkSet | null;
  token_endpoint_auth_method?: ClientAuthMethod;
  dpop_required?: boolean;
  livemode?: boolean;
}
interface UserRow {
  id: string;
  tenant_id: string;
  external_user_ref: string;
  email: string | null;
  password_hash: string | null;
  created_at: Date;
  disabled_at?: Date | null;
  tokens_valid_from?: Date | null;
}

const dateOrNull = (d: Date | null | undefined): Date | null => (d === null || d === undefined ? null : new Date(d));

const toTenant = (r: TenantRow): Tenant => ({
  id: r.id,
  name: r.name,
  clientId: r.client_id,
  clientSecretHash: r.client_secret_hash,
  currency: r.currency,
  createdAt: new Date(r.created_at),
  previousClientSecretHash: r.previous_client_secret_hash ?? null,
  previousSecretValidUntil: dateOrNull(r.previous_secret_valid_until),
  clientJwks: r.client_jwks ?? null,
  authMethod: r.token_endpoint_auth_method ?? 'client_secret',
  dpopRequired: r.dpop_required ?? false,
  livemode: r.livemode ?? true,
});
const toUser = (r: UserRow): WalletUser => ({
  id: r.id,
  tenantId: r.tenant_id,
  externalUserRef: r.external_user_ref,
  email: r.email,
  passwordHash: r.password_hash,
  createdAt: new Date(r.created_at),
  disabledAt: dateOrNull(r.disabled_at),
  tokensValidFrom: dateOrNull(r.tokens_valid_from),
});
const userRow = (u: WalletUser): UserRow => ({
  id: u.id,
  tenant_id: u.tenantId,
  external_user_ref: u.externalUserRef,
  email: u.email,
  password_hash: u.passwordHash,
  created_at: u.createdAt,
  disabled_at: u.disabledAt ?? null,
  tokens_valid_from: u.tokensValidFrom ?? null,
});

const USER_COLUMNS = [
  'wallet_users.id',
  'wallet_users.tenant_id',
  'wallet_users.external_user_ref',
  'wallet_users.email',
  'wallet_users.password_hash',
  'wallet_users.created_at',
  'wallet_users.disabled_at',
  'wallet_users.tokens_valid_from',
];

/** Tenants and wallet users on PostgreSQL; uniqueness is enforced by the database's indexes. */
export class KnexTenantDirectory extends KnexStore implements TenantDirectory {
  async createTenant(tenant: Tenant): Promise<void> {
    await this.knex<TenantRow>('tenants').insert({
      id: tenant.id,
      name: tenant.name,
      client_id: tenant.clientId,
      client_secret_hash: tenant.clientSecretHash,
      currency: tenant.currency,
      created_at: tenant.createdAt,
      livemode: tenant.livemode ?? true,
    });
  }

  async findTenant(tenantId: string): Promise<Tenant | null> {
    const row = await this.knex<TenantRow>('tenants').where({ id: tenantId }).first();
    return row === undefined ? null : toTenant(row);
  }

  async findTenantByClientId(clientId: string): Promise<Tenant | null> {
    const row = await this.knex<TenantRow>('tenants').where({ client_id: clientId }).first();
    return row === undefined ? null : toTenant(row);
  }

  async findTenantByName(name: string): Promise<Tenant | null> {
    const row = await this.knex<TenantRow>('tenants')
      .where({ name })
      .orderBy([{ column: 'created_at' }, { column: 'id' }])
      .first();
    return row === undefined ? null : toTenant(row);
  }

  async listTenants(): Promise<Tenant[]> {
    const rows = await this.knex<TenantRow>('tenants').orderBy([{ column: 'created_at' }, { column: 'id' }]);
    return rows.map(toTenant);
  }

  async replaceClientSecret(tenantId: string, clientSecretHash: string, context: SecurityContext = SYSTEM_CONTEXT): Promise<boolean> {
    return this.knex.transaction(async (trx) => {
      const [row] = await trx<TenantRow>('tenants')
        .where({ id: tenantId })
        .update({ client_secret_hash: clientSecretHash, previous_client_secret_hash: null, previous_secret_valid_until: null })
        .returning('*');
      if (row === undefined) return false;
      await recordSecurityEvents(trx, [clientSecretRotated(toTenant(row as TenantRow), null, context)]);
      return true;
    });
  }

  async updateClientSettings(
    tenantId: string,
    change: ClientSettingsChange,
    context: SecurityContext = SYSTEM_CONTEXT,
  ): Promise<Tenant | null> {
    const changes: Partial<TenantRow> = {
      ...(change.jwks === undefined ? {} : { client_jwks: change.jwks === null ? null : (JSON.stringify(change.jwks) as never) }),
      ...(change.authMethod === undefined ? {} : { token_endpoint_auth_method: change.authMethod }),
      ...(change.dpopRequired === undefined ? {} : { dpop_required: change.dpopRequired }),
    };
    if (Object.keys(changes).length === 0) return this.findTenant(tenantId);
    return this.knex.transaction(async (trx) => {
      const [row] = await trx<TenantRow>('tenants')
        .where({ id: tenantId })
        .update(changes as never)
        .returning('*');
      if (row === undefined) return null;
      const tenant = toTenant(row as TenantRow);
      if (change.jwks !== undefined) {
        await recordSecurityEvents(trx, [clientJwksUpdated(tenant, change.jwks, context)]);
      }
      return tenant;
    });
  }

  async rotateClientSecret(
    tenantId: string,
    clientSecretHash: string,
    previousValidUntil: Date | null,
    context: SecurityContext = SYSTEM_CONTEXT,
  ): Promise<Tenant | null> {
    return this.knex.transaction(async (trx) => {
      // One statement: the secret kept is the one current at the moment of the update.
      const [row] = await trx<TenantRow>('tenants')
        .where({ id: tenantId })
        .update({
          client_secret_hash: clientSecretHash,
          previous_client_secret_hash: previousValidUntil === null ? null : trx.ref('client_secret_hash'),
          previous_secret_valid_until: previousValidUntil,
        } as never)
        .returning('*');
      if (row === undefined) return null;
      const tenant = toTenant(row as TenantRow);
      await recordSecurityEvents(trx, [clientSecretRotated(tenant, previousValidUntil, context)]);
      return tenant;
    });
  }

  async setUserDisabled(userId: string, at: Date | null, context: SecurityContext = SYSTEM_CONTEXT): Promise<WalletUser | null> {
    return this.knex.transaction(async (trx) => {
      const before = await trx<UserRow>('wallet_users').where({ id: userId }).forUpdate().first();
      if (before === undefined) return null;
      const changes =
        at === null ? { disabled_at: null } : { disabled_at: trx.raw('coalesce(disabled_at, ?)', [at]), tokens_valid_from: at };
      const [row] = await trx<UserRow>('wallet_users')
        .where({ id: userId })
        .update(changes as never)
        .returning('*');
      const user = toUser(row as UserRow);
      // Recorded when the state changes: disabling a disabled user records nothing.
      const wasDisabled = before.disabled_at !== null;
      if (wasDisabled !== (at !== null)) await recordSecurityEvents(trx, [userDisabledEvent(user, at !== null, context)]);
      return user;
    });
  }

  async createUser(user: WalletUser, context: SecurityContext = SYSTEM_CONTEXT): Promise<WalletUser> {
    try {
      return await this.knex.transaction(async (trx) => {
        // The user, its `wallet_user.created` event and its `user.created` trail event commit together.
        const result = await trx.raw('WITH created AS (?) SELECT created.*, pbw_webhook_record(?::jsonb) AS queued FROM created', [
          trx('wallet_users').insert(userRow(user)).returning('*'),
          eventsJson([walletUserCreated(user)]),
        ]);
        const created = toUser((result.rows as UserRow[])[0]!);
        await recordSecurityEvents(trx, [walletUserCreatedEvent(created, context)]);
        return created;
      });
    } catch (err) {
      throw this.translate(err);
    }
  }

  async ensureUser(user: WalletUser, context: SecurityContext = SYSTEM_CONTEXT): Promise<WalletUser> {
    try {
      // The events are recorded only when this statement created the user.
      const created = await this.knex.transaction(async (trx) => {
        const result = await trx.raw('WITH created AS (?) SELECT created.*, pbw_webhook_record(?::jsonb) AS queued FROM created', [
          trx('wallet_users').insert(userRow(user)).onConflict(['tenant_id', 'external_user_ref']).ignore().returning('*'),
          eventsJson([walletUserCreated(user)]),
        ]);
        const row = (result.rows as UserRow[])[0];
        if (row === undefined) return null;
        const made = toUser(row);
        await recordSecurityEvents(trx, [walletUserCreatedEvent(made, context)]);
        return made;
      });
      if (created !== null) return created;
    } catch (err) {
      throw this.translate(err);
    }
    // The insert lost to an existing row, which a unique index guarantees is the only one.
    const existing = await this.knex<UserRow>('wallet_users')
      .where({ tenant_id: user.tenantId, external_user_ref: user.externalUserRef })
      .first();
    if (existing === undefined) throw new Error('ensureUser: conflicting user vanished');
    return toUser(existing);
  }

  async findUser(tenantId: string, userId: string): Promise<WalletUser | null> {
    const row = await this.knex('wallet_users')
      .join('tenants', 'tenants.id', 'wallet_users.tenant_id')
      .where({ 'wallet_users.id': userId, 'wallet_users.tenant_id': tenantId })
      .first<UserRow | undefined>(USER_COLUMNS);
    return row === undefined ? null : toUser(row);
  }

  async findUserByEmail(tenantId: string, email: string): Promise<WalletUser | null> {
    const row = await this.knex<UserRow>('wallet_users')
      .where({ tenant_id: tenantId })
      .whereNotNull('email')
      .whereRaw('lower(email) = lower(?)', [email.trim()])
      .first();
    return row === undefined ? null : toUser(row);
  }

  async setPasswordHash(tenantId: string, userId: string, passwordHash: string): Promise<boolean> {
    const n = await this.knex<UserRow>('wallet_users').where({ tenant_id: tenantId, id: userId }).update({ password_hash: passwordHash });
    return n > 0;
  }

  async listUsers(tenantId: string, after: Cursor | null, limit: number): Promise<WalletUser[]> {
    const q = this.knex<UserRow>('wallet_users').where({ tenant_id: tenantId });
    if (after !== null) q.whereRaw('(created_at, id) > (?, ?)', [after.createdAt, after.id]);
    const rows = await q.orderBy([{ column: 'created_at' }, { column: 'id' }]).limit(limit);
    return rows.map(toUser);
  }

  private translate(err: unknown): unknown {
    if (isUniqueViolation(err)) {
      const constraint = (err as { constraint?: string }).constraint ?? '';
      return new DomainError('user-exists', {
        message: constraint.includes('email')
          ? 'The tenant already has a user with that email.'
          : 'The tenant already has a user with that externalUserRef.',
      });
    }
    if (isForeignKeyViolation(err)) return new DomainError('tenant-not-found');
    return err;
  }
}
