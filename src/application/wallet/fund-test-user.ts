import type { MachinePrincipal } from '../../domain/identity/principal.js';
import { livemodeOf } from '../../domain/identity/tenant.js';
import type { TenantDirectory } from '../../domain/identity/tenant-directory.port.js';
import type { AmountInput } from '../../domain/wallet/ledger.js';
import type { Transaction } from '../../domain/wallet/transaction.js';
import type { TopUp } from './top-up.js';

/** What a sandbox tenant's test helper credits one of its users with. */
export interface FundTestUserCommand {
  readonly principal: MachinePrincipal;
  readonly userId: string;
  readonly amount: AmountInput;
}

/**
 * A sandbox tenant's test helper: credits one of its users as a top-up does (the same ledger
 * transaction, entries and events). A live tenant has no test helpers: the answer is null, and
 * nothing is written.
 */
export class FundTestUser {
  constructor(
    private readonly tenants: TenantDirectory,
    private readonly topUp: TopUp,
  ) {}

  async execute(c: FundTestUserCommand): Promise<Transaction | null> {
    const tenant = await this.tenants.findTenant(c.principal.tenantId);
    if (tenant === null || livemodeOf(tenant)) return null;
    return this.topUp.execute({ principal: c.principal, userId: c.userId, amount: c.amount, reference: 'test-helper-fund' });
  }
}
