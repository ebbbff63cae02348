import { MemoryIdempotencyStore } from '../../src/adapters/memory/idempotency.memory.js';
import { MemoryLedger } from '../../src/adapters/memory/ledger.memory.js';
import { MemoryUnitOfWork } from '../../src/adapters/memory/unit-of-work.memory.js';
import { ledgerTenant, topUpOf } from '../support/ledger-builders.js';
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
          await topUpOf(ledger, t, u, 1);
        },
        count: () => ledger.balanceOf(t.tenantId, u),
      },
    };
  },
  { concurrent: async () => true, rollsBack: false },
);
