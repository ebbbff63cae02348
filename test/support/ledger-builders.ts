import type { Ledger } from '../../src/domain/wallet/ledger.port.js';
import { machineInitiator, testId, type LedgerTenant } from '../../src/testing/fixtures.js';

export { testId, ledgerTenant, machineInitiator, userInitiator, idemKey, type LedgerTenant } from '../../src/testing/fixtures.js';

/** A top-up of `amount` THB to `u` by the tenant's machine token (in the running unit of work, if any). */
export const topUpOf = (ledger: Ledger, t: LedgerTenant, u: string, amount: number) =>
  ledger.topUp({
    id: testId('txn'),
    tenantId: t.tenantId,
    userId: u,
    amount: { amount, currency: 'THB' },
    reference: 'r',
    initiatedBy: machineInitiator(t),
    createdAt: new Date(),
  });
