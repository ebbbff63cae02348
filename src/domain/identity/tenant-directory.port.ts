import type { Cursor } from '../shared/page.js';
import type { ClientSettingsChange } from './client-keys.js';
import type { SecurityContext } from '../security-events/security-event.js';
import type { Tenant, WalletUser } from './tenant.js';

/**
 * Tenants and their wallet users. Every user read takes the tenant, so no adapter can return
 * another tenant's user.
 */
export interface TenantDirectory {
  // Every change to a client secret or a user records its security event (`client_secret.rotated`,
  // `user.created`, `user.disabled`, `user.enabled`) in the same transaction, with `context` as
  // who did it (the service itself when absent).
  /** Stores a new tenant. Client ids are generated and unique; a clash is a programming error. */
  createTenant(tenant: Tenant): Promise<void>;
  /** Returns the tenant, or null. */
  findTenant(tenantId: string): Promise<Tenant | null>;
  /** Returns the tenant whose OAuth client id this is, or null. Exact, case-sensitive match. */
  findTenantByClientId(clientId: string): Promise<Tenant | null>;
  /** Returns the oldest tenant with exactly this name, or null. */
  findTenantByName(name: string): Promise<Tenant | null>;
  /** Every tenant in creation order (createdAt, then id). */
  listTenants(): Promise<Tenant[]>;
  /**
   * Replaces the stored client secret hash, and forgets any previous secret still in its
   * rotation overlap; returns false when there is no such tenant.
   */
  replaceClientSecret(tenantId: string, clientSecretHash: string, context?: SecurityContext): Promise<boolean>;
  /**
   * Makes `clientSecretHash` the current secret and keeps the one it replaces valid until
   * `previousValidUntil` (null: not at all). A secret still in an earlier overlap is dropped:
   * a tenant has at most two. Returns the updated tenant, or null when there is no such tenant.
   */
  rotateClientSecret(
    tenantId: string,
    clientSecretHash: string,
    previousValidUntil: Date | null,
    context?: SecurityContext,
  ): Promise<Tenant | null>;
  /**
   * Changes the tenant's OAuth client settings (registered JWK Set, authentication method, DPoP
   * requirement); a setting absent from `change` is kept. Returns the updated tenant, or null
   * when there is no such tenant. Every instance sees the change within a second. A new JWK Set
   * records `client.jwks_updated` (by `context`'s actor) in the same transaction.
   */
  updateClientSettings(tenantId: string, change: ClientSettingsChange, context?: SecurityContext): Promise<Tenant | null>;
  /**
   * Stores a new user. Throws DomainError `user-exists` when the tenant already has a user with
   * that `externalUserRef` or (case-insensitively) that email, `tenant-not-found` when the tenant
   * does not exist. Under concurrency exactly one of two clashing creations succeeds. A created
   * user records `wallet_user.created` (`walletUserCreated`) in the same transaction.
   */
  createUser(user: WalletUser, context?: SecurityContext): Promise<WalletUser>;
  /**
   * Returns the tenant's user with `user.externalUserRef`, creating `user` when there is none.
   * Under concurrency every caller gets the same single user, and only the creation records
   * `wallet_user.created`. Throws `tenant-not-found`.
   */
  ensureUser(user: WalletUser, context?: SecurityContext): Promise<WalletUser>;
  /** Returns the user when it belongs to this tenant and the tenant still exists; else null. */
  findUser(tenantId: string, userId: string): Promise<WalletUser | null>;
  /** Returns the tenant's user with this email (case-insensitive), or null. */
  findUserByEmail(tenantId: string, email: string): Promise<WalletUser | null>;
  /**
   * Disables the user (any tenant's: an operator's act) at `at`, cutting off every token issued
   * until then, or enables it again with `at` null (earlier tokens stay cut off). Disabling a
   * disabled user keeps its first `disabledAt`. Returns the updated user, or null when there is
   * no such user.
   */
  setUserDisabled(userId: string, at: Date | null, context?: SecurityContext): Promise<WalletUser | null>;
  /** Sets the user's password hash; returns false when the tenant has no such user. */
  setPasswordHash(tenantId: string, userId: string, passwordHash: string): Promise<boolean>;
  /**
   * The tenant's users in creation order (createdAt, then id), strictly after `after` when given,
   * at most `limit`. Empty when there are none.
   */
  listUsers(tenantId: string, after: Cursor | null, limit: number): Promise<WalletUser[]>;
}
