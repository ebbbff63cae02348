import { OPERATOR_CONTEXT, type SecurityContext } from '../../domain/security-events/security-event.js';
import { checkEmailAddress } from '../../domain/identity/email-address.js';
import type { CommonPasswords } from '../../domain/identity/common-passwords.port.js';
import type { PasswordHasher } from '../../domain/identity/password-hasher.port.js';
import { checkNewPassword } from '../../domain/identity/password-policy.js';
import { isExternalUserRef } from '../../domain/identity/tenant.js';
import type { TenantDirectory } from '../../domain/identity/tenant-directory.port.js';
import type { Clock } from '../../domain/shared/clock.port.js';
import { DomainError } from '../../domain/shared/errors.js';
import type { IdGenerator } from '../../domain/shared/ids.port.js';
import { toWalletUserView, type WalletUserView } from '../wallet/wallet-user-view.js';

/** The input of a new wallet user: a reference of the tenant's, and an email and password for `/auth/login`. */
export interface NewWalletUser {
  readonly externalUserRef?: string;
  readonly email?: string;
  readonly password?: string;
}

/**
 * The operator creates a wallet user of the tenant it names (`admin wallet user create`, the
 * demo seed), with an optional email and password (not a common one) for `/auth/login`. A
 * tenant's own backend creates its users through `CreateWalletUser`, which takes its principal.
 */
export class CreateTenantUser {
  constructor(
    private readonly tenants: TenantDirectory,
    private readonly passwords: PasswordHasher,
    private readonly ids: IdGenerator,
    private readonly clock: Clock,
    private readonly commonPasswords: CommonPasswords,
  ) {}

  /** `context`: who creates the user (the operator when absent). */
  async execute(tenantId: string, input: NewWalletUser, context: SecurityContext = OPERATOR_CONTEXT): Promise<WalletUserView> {
    const id = this.ids.next('usr');
    const externalUserRef = input.externalUserRef ?? id;
    if (!isExternalUserRef(externalUserRef))
      throw new DomainError('invalid-request', { message: 'externalUserRef must be 1-128 of A-Z a-z 0-9 . _ : @ -.' });
    const email = input.email === undefined ? undefined : checkEmailAddress(input.email);
    if (input.password !== undefined) {
      if (email === undefined)
        throw new DomainError('invalid-request', {
          message: 'A password needs an email to log in with.',
          details: { errors: [{ path: 'email', message: 'is required with a password' }] },
        });
      await checkNewPassword(input.password, this.commonPasswords);
    }
    const user = await this.tenants.createUser(
      {
        id,
        tenantId,
        externalUserRef,
        email: email ?? null,
        passwordHash: input.password === undefined ? null : await this.passwords.hash(input.password),
        createdAt: this.clock.now(),
      },
      context,
    );
    return toWalletUserView(user);
  }
}
