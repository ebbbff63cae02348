import { MemoryLedger } from '../../src/adapters/memory/ledger.memory.js';
import { assertMemoryLedgerBalanced } from '../support/ledger-balance.js';
import { ledgerContract } from 'partner-booking-wallet/testing';

ledgerContract(
  'memory',
  async () => {
    const ledger = new MemoryLedger();
    return { ledger, reader: ledger };
  },
  {
    concurrent: async () => true,
    check: async ({ ledger }) => assertMemoryLedgerBalanced(ledger as MemoryLedger),
  },
);
