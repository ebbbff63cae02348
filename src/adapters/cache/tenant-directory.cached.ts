import type { ClientSettingsChange } from '../../domain/identity/client-keys.js';
import type { SecurityContext } from '../../domain/security-events/security-event.js';
import type { Tenant, WalletUser } from '../../domain/identity/tenant.js';
import type { TenantDirectory } from '../../domain/identity/tenant-directory.port.js';
import type { Cursor } from '../../domain/shared/page.js';
import { InvalidatedCacheFront, type CacheHealth, type InvalidatedCacheOptions } from './lru-caches.js';

/** The tables whose changes can make a cached tenant or wallet user stale. */
export const WALLET_IDENTITY_TABLES: ReadonlySet<string> = new Set(['tenants', 'wallet_users']);

/**
 * A bounded LRU in front of the tenant directory for the reads made on every wallet request:
 * the token's tenant, its user, and the tenant of a client id at `/oauth/token`. Only found
 * entries are kept, so a new tenant or user is seen at once. A secret reset, a password change
 * or a deletion made through this instance clears it at once; one made anywhere else (another
 * instance, plain SQL) reaches it through the database's change feed, and `clear()` is called.
 * While the feed is down the cache is bypassed; entries also age out after `ttlMs` as a last
 * resort.
 */
export class CachedTenantDirectory extends InvalidatedCacheFront<Tenant | WalletUser> implements TenantDirectory {
  constructor(
    private readonly inner: TenantDirectory,
    health: CacheHealth,
    options: InvalidatedCacheOptions,
  ) {
    super(health, options);
  }

  findTenant(tenantId: string): Promise<Tenant | null> {
    return this.cached(`t|${tenantId}`, () => this.inner.findTenant(tenantId));
  }

  findTenantByClientId(clientId: string): Promise<Tenant | null> {
    return this.cached(`c|${clientId}`, () => this.inner.findTenantByClientId(clientId));
  }

  findUser(tenantId: string, userId: string): Promise<WalletUser | null> {
    return this.cached(`u|${tenantId}|${userId}`, () => this.inner.findUser(tenantId, userId));
  }

  findTenantByName(name: string): Promise<Tenant | null> {
    return this.inner.findTenantByName(name);
  }

  findUserByEmail(tenantId: string, email: string): Promise<WalletUser | null> {
    return this.inner.findUserByEmail(tenantId, email);
  }

  listUsers(tenantId: string, after: Cursor | null, limit: number): Promise<WalletUser[]> {
    return this.inner.listUsers(tenantId, after, limit);
  }

  createTenant(tenant: Tenant): Promise<void> {
    return this.inner.createTenant(tenant);
  }

  createUser(user: WalletUser, context?: SecurityContext): Promise<WalletUser> {
    return this.inner.createUser(user, context);
  }

  ensureUser(user: WalletUser, context?: SecurityContext): Promise<WalletUser> {
    return this.inner.ensureUser(user, context);
  }

  async replaceClientSecret(tenantId: string, clientSecretHash: string, context?: SecurityContext): Promise<boolean> {
    try {
      return await this.inner.replaceClientSecret(tenantId, clientSecretHash, context);
    } finally {
      this.clear();
    }
  }

  listTenants(): Promise<Tenant[]> {
    return this.inner.listTenants();
  }

  async rotateClientSecret(
    tenantId: string,
    clientSecretHash: string,
    previousValidUntil: Date | null,
    context?: SecurityContext,
  ): Promise<Tenant | null> {
    try {
      return await this.inner.rotateClientSecret(tenantId, clientSecretHash, previousValidUntil, context);
    } finally {
      this.clear();
    }
  }

  async updateClientSettings(tenantId: string, change: ClientSettingsChange, context?: SecurityContext): Promise<Tenant | null> {
    try {
      return await this.inner.updateClientSettings(tenantId, change, context);
    } finally {
      this.clear();
    }
  }

  async setUserDisabled(userId: string, at: Date | null, context?: SecurityContext): Promise<WalletUser | null> {
    try {
      return await this.inner.setUserDisabled(userId, at, context);
    } finally {
      this.clear();
    }
  }

  async setPasswordHash(tenantId: string, userId: string, passwordHash: string): Promise<boolean> {
    try {
      return await this.inner.setPasswordHash(tenantId, userId, passwordHash);
    } finally {
      this.clear();
    }
  }

  private cached<T extends Tenant | WalletUser>(key: string, load: () => Promise<T | null>): Promise<T | null> {
    return this.cache.get(key, load) as Promise<T | null>;
  }
}
