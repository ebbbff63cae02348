import type { MachinePrincipal, WalletUserPrincipal } from '../../domain/identity/principal.js';
import type { CommonPasswords } from '../../domain/identity/common-passwords.port.js';
import type { PasswordHasher } from '../../domain/identity/password-hasher.port.js';
import { checkNewPassword } from '../../domain/identity/password-policy.js';
import { isExternalUserRef, type WalletUser } from '../../domain/identity/tenant.js';
import type { TenantDirectory } from '../../domain/identity/tenant-directory.port.js';
import type { Clock } from '../../domain/shared/clock.port.js';
import { invalid, notFound } from '../../domain/shared/errors.js';
import type { IdGenerator } from '../../domain/shared/ids.port.js';
import { PAGE_LIMITS, decodeCursor, encodeCursor, type Page } from '../../domain/shared/page.js';
import { toWalletUserView, type WalletUserView } from './wallet-user-view.js';

export { PASSWORD_LENGTH } from '../../domain/identity/password-policy.js';
const EMAIL = /^[^\s@]{1,64}@[^\s@]{1,253}\.[^\s@]{1,63}$/;

const userNotFound = () => notFound('user-not-found', 'No such user.');

/** Creates a wallet user of a tenant, with an optional email and password (not a common one) for `/auth/login`. */
export class CreateWalletUser {
  constructor(
    private readonly tenants: TenantDirectory,
    private readonly passwords: PasswordHasher,
    private readonly ids: IdGenerator,
    private readonly clock: Clock,
    private readonly commonPasswords: CommonPasswords,
  ) {}

  async execute(tenantId: string, input: { externalUserRef?: string; email?: string; password?: string }): Promise<WalletUserView> {
    const id = this.ids.next('usr');
    const externalUserRef = input.externalUserRef ?? id;
    if (!isExternalUserRef(externalUserRef)) throw invalid('invalid-request', 'externalUserRef must be 1-128 of A-Z a-z 0-9 . _ : @ -.');
    const email = input.email?.trim();
    if (email !== undefined && (email.length > 254 || !EMAIL.test(email)))
      throw invalid('invalid-request', 'email is not a valid address.');
    if (input.password !== undefined) {
      if (email === undefined) throw invalid('invalid-request', 'A password needs an email to log in with.');
      await checkNewPassword(input.password, this.commonPasswords);
    }
    const user = await this.tenants.createUser({
      id,
      tenantId,
      externalUserRef,
      email: email ?? null,
      passwordHash: input.password === undefined ? null : await this.passwords.hash(input.password),
      createdAt: this.clock.now(),
    });
    return toWalletUserView(user);
  }
}

/** One user of the calling tenant; another tenant's user is not found. */
export class GetWalletUser {
  constructor(private readonly tenants: TenantDirectory) {}

  async execute(machine: MachinePrincipal, userId: string): Promise<WalletUserView> {
    const user = await this.tenants.findUser(machine.tenantId, userId);
    if (user === null) throw userNotFound();
    return toWalletUserView(user);
  }
}

/** The calling tenant's users in creation order, one keyset page at a time. */
export class ListWalletUsers {
  constructor(private readonly tenants: TenantDirectory) {}

  async execute(machine: MachinePrincipal, query: { cursor?: string; limit?: number }): Promise<Page<WalletUserView>> {
    const limit = query.limit ?? PAGE_LIMITS.default;
    if (!Number.isInteger(limit) || limit < PAGE_LIMITS.min || limit > PAGE_LIMITS.max) {
      throw invalid('invalid-request', `limit must be ${PAGE_LIMITS.min}-${PAGE_LIMITS.max}.`);
    }
    const after = query.cursor === undefined ? null : decodeCursor(query.cursor);
    if (query.cursor !== undefined && after === null) throw invalid('invalid-request', 'cursor is not valid.');
    const rows = await this.tenants.listUsers(machine.tenantId, after, limit + 1);
    const page = rows.slice(0, limit);
    const last = page[page.length - 1];
    return {
      data: page.map(toWalletUserView),
      nextCursor: rows.length > limit && last !== undefined ? encodeCursor({ createdAt: last.createdAt, id: last.id }) : null,
    };
  }
}

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
