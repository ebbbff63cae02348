import {
  clientJwksUpdated,
  SYSTEM_CONTEXT,
  clientSecretRotated,
  userDisabledEvent,
  walletUserCreatedEvent,
  type SecurityContext,
} from '../../domain/security-events/security-event.js';
import type { MemorySecurityEvents } from './security-events.memory.js';
import { walletUserCreated } from '../../domain/webhooks/events.js';
import type { MemoryOutbox } from './webhooks.memory.js';
import type { ClientSettingsChange } from '../../domain/identity/client-keys.js';
import type { Tenant, WalletUser } from '../../domain/identity/tenant.js';
import { newTenant, normalizeEmail } from '../../domain/identity/tenant.js';
import type { TenantDirectory } from '../../domain/identity/tenant-directory.port.js';
import { DomainError } from '../../domain/shared/errors.js';
import type { Cursor } from '../../domain/shared/page.js';

const byCreation = (a: { createdAt: Date; id: string }, b: { createdAt: Date; id: string }): number =>
  a.createdAt.getTime() - b.createdAt.getTime() || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

/** Tenants and wallet users in process memory, with the same rules as PostgreSQL. */
export class MemoryTenantDirectory implements TenantDirectory {
  /**
   * `outbox` records `wallet_user.created` with each new user, as the database's would; `trail`
   * records the security events of each change in the same step.
   */
  constructor(
    private readonly outbox?: MemoryOutbox,
    private readonly trail?: MemorySecurityEvents,
  ) {}

  private readonly tenants = new Map<string, Tenant>();
  private readonly users = new Map<string, WalletUser>();

  /** Whether the tenant is live (false: a sandbox tenant); an unknown one is live. */
  livemodeOf(tenantId: string): boolean {
    return this.tenants.get(tenantId)?.livemode ?? true;
  }

  async createTenant(tenant: Tenant): Promise<void> {
    if (this.tenants.has(tenant.id) || [...this.tenants.values()].some((t) => t.clientId === tenant.clientId)) {
      throw new Error('createTenant: duplicate tenant id or client id');
    }
    this.tenants.set(tenant.id, newTenant(tenant));
  }

  async findTenant(tenantId: string): Promise<Tenant | null> {
    return this.tenants.get(tenantId) ?? null;
  }

  async findTenantByClientId(clientId: string): Promise<Tenant | null> {
    return [...this.tenants.values()].find((t) => t.clientId === clientId) ?? null;
  }

  async findTenantByName(name: string): Promise<Tenant | null> {
    return [...this.tenants.values()].filter((t) => t.name === name).sort(byCreation)[0] ?? null;
  }

  async listTenants(): Promise<Tenant[]> {
    return [...this.tenants.values()].sort(byCreation);
  }

  async replaceClientSecret(tenantId: string, clientSecretHash: string, context: SecurityContext = SYSTEM_CONTEXT): Promise<boolean> {
    const t = this.tenants.get(tenantId);
    if (t === undefined) return false;
    this.tenants.set(tenantId, { ...t, clientSecretHash, previousClientSecretHash: null, previousSecretValidUntil: null });
    this.trail?.record([clientSecretRotated(t, null, context)]);
    return true;
  }

  async updateClientSettings(
    tenantId: string,
    change: ClientSettingsChange,
    context: SecurityContext = SYSTEM_CONTEXT,
  ): Promise<Tenant | null> {
    const updated = this.update(tenantId, (t) => ({
      ...t,
      ...(change.jwks === undefined ? {} : { clientJwks: change.jwks }),
      ...(change.authMethod === undefined ? {} : { authMethod: change.authMethod }),
      ...(change.dpopRequired === undefined ? {} : { dpopRequired: change.dpopRequired }),
    }));
    if (updated === null) return null;
    if (change.jwks !== undefined) {
      this.trail?.record([clientJwksUpdated(updated, change.jwks, context)]);
    }
    return { ...updated };
  }

  async rotateClientSecret(
    tenantId: string,
    clientSecretHash: string,
    previousValidUntil: Date | null,
    context: SecurityContext = SYSTEM_CONTEXT,
  ): Promise<Tenant | null> {
    const updated = this.update(tenantId, (t) => ({
      ...t,
      clientSecretHash,
      previousClientSecretHash: previousValidUntil === null ? null : t.clientSecretHash,
      previousSecretValidUntil: previousValidUntil,
    }));
    if (updated === null) return null;
    this.trail?.record([clientSecretRotated(updated, previousValidUntil, context)]);
    return { ...updated };
  }

  async setUserDisabled(userId: string, at: Date | null, context: SecurityContext = SYSTEM_CONTEXT): Promise<WalletUser | null> {
    const u = this.users.get(userId);
    if (u === undefined || !this.tenants.has(u.tenantId)) return null;
    const updated: WalletUser = at === null ? { ...u, disabledAt: null } : { ...u, disabledAt: u.disabledAt ?? at, tokensValidFrom: at };
    this.users.set(userId, updated);
    if (((u.disabledAt ?? null) !== null) !== (at !== null))
      this.trail?.record([userDisabledEvent(updated, at !== null, context, at ?? new Date())]);
    return { ...updated };
  }

  async createUser(user: WalletUser, context: SecurityContext = SYSTEM_CONTEXT): Promise<WalletUser> {
    if (!this.tenants.has(user.tenantId)) throw new DomainError('tenant-not-found');
    const mine = this.ofTenant(user.tenantId);
    if (mine.some((u) => u.externalUserRef === user.externalUserRef)) {
      throw new DomainError('user-exists');
    }
    if (user.email !== null && mine.some((u) => u.email !== null && normalizeEmail(u.email) === normalizeEmail(user.email!))) {
      throw new DomainError('user-exists', { message: 'The tenant already has a user with that email.' });
    }
    if (this.users.has(user.id)) throw new Error('createUser: duplicate user id');
    const stored: WalletUser = { disabledAt: null, tokensValidFrom: null, ...user };
    this.users.set(user.id, stored);
    this.outbox?.record([walletUserCreated(stored)]);
    this.trail?.record([walletUserCreatedEvent(stored, context)]);
    return { ...stored };
  }

  async ensureUser(user: WalletUser, context: SecurityContext = SYSTEM_CONTEXT): Promise<WalletUser> {
    if (!this.tenants.has(user.tenantId)) throw new DomainError('tenant-not-found');
    const existing = this.ofTenant(user.tenantId).find((u) => u.externalUserRef === user.externalUserRef);
    return existing ?? this.createUser(user, context);
  }

  async findUser(tenantId: string, userId: string): Promise<WalletUser | null> {
    const u = this.users.get(userId);
    return u !== undefined && u.tenantId === tenantId && this.tenants.has(tenantId) ? u : null;
  }

  async findUserByEmail(tenantId: string, email: string): Promise<WalletUser | null> {
    const wanted = normalizeEmail(email);
    return this.ofTenant(tenantId).find((u) => u.email !== null && normalizeEmail(u.email) === wanted) ?? null;
  }

  async setPasswordHash(tenantId: string, userId: string, passwordHash: string): Promise<boolean> {
    const u = await this.findUser(tenantId, userId);
    if (u === null) return false;
    this.users.set(userId, { ...u, passwordHash });
    return true;
  }

  async listUsers(tenantId: string, after: Cursor | null, limit: number): Promise<WalletUser[]> {
    return this.ofTenant(tenantId)
      .sort(byCreation)
      .filter((u) => after === null || byCreation(u, after) > 0)
      .slice(0, limit);
  }

  /** Stores what `change` makes of the tenant and answers it; null, and nothing stored, for an unknown tenant. */
  private update(tenantId: string, change: (t: Tenant) => Tenant): Tenant | null {
    const t = this.tenants.get(tenantId);
    if (t === undefined) return null;
    const updated = change(t);
    this.tenants.set(tenantId, updated);
    return updated;
  }

  private ofTenant(tenantId: string): WalletUser[] {
    return [...this.users.values()].filter((u) => u.tenantId === tenantId);
  }
}
