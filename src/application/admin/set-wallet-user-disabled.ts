import { OPERATOR_CONTEXT } from '../../domain/security-events/security-event.js';
import type { TenantDirectory } from '../../domain/identity/tenant-directory.port.js';
import type { Clock } from '../../domain/shared/clock.port.js';
import { DomainError } from '../../domain/shared/errors.js';
import { type WalletUserSummary, summaryOf } from './wallet-user-summary.js';

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
    const user = await this.tenants.setUserDisabled(userId, disabled ? this.clock.now() : null, OPERATOR_CONTEXT);
    if (user === null) throw new DomainError('user-not-found');
    return summaryOf(user);
  }
}
