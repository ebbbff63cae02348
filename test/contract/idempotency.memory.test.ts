import { MemoryIdempotencyStore } from '../../src/adapters/memory/idempotency.memory.js';
import { MemoryLedger } from '../../src/adapters/memory/ledger.memory.js';
import { MemoryUnitOfWork } from '../../src/adapters/memory/unit-of-work.memory.js';
import { ledgerTenant, machineInitiator, testId } from '../support/ledger-builders.js';
import { idempotencyContract } from 'partner-booking-wallet/testing';

idempotencyContract(
  'memory',
  async ({ waitMs }) => {
    const ledger = new MemoryLedger();
    const t = ledgerTenant();
    const u = t.newUser();
    return {
      store: new MemoryIdempotencyStore({ waitMs }),
      unitOfWork: new MemoryUnitOfWork(),
      effect: {
        write: async () => {
          await ledger.topUp({
            id: testId('txn'),
            tenantId: t.tenantId,
            userId: u,
            amount: { amount: 1, currency: 'THB' },
            reference: 'effect',
            initiatedBy: machineInitiator(t),
            createdAt: new Date(),
          });
        },
        count: () => ledger.balanceOf(t.tenantId, u),
      },
    };
  },
  { concurrent: async () => true, rollsBack: false },
);
