import { MemoryLedger } from '../../src/adapters/memory/ledger.memory.js';
import { MemoryPendingTransfers } from '../../src/adapters/memory/pending-transfers.memory.js';
import { pendingTransfersContract } from '../support/pending-transfers-contract.js';

pendingTransfersContract('memory', async () => {
  const ledger = new MemoryLedger();
  return { ledger, transfers: new MemoryPendingTransfers(ledger) };
});
