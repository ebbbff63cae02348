import { SystemClock } from '../../src/adapters/crypto/node-crypto.js';
import { MemoryLedger } from '../../src/adapters/memory/ledger.memory.js';
import { MemoryWebhookStore } from '../../src/adapters/memory/webhooks.memory.js';
import { assertMemoryLedgerBalanced } from '../support/ledger-balance.js';
import { ledgerContract } from 'partner-booking-wallet/testing';

/** The outbox the ledger of the current case records into. */
let webhooks = new MemoryWebhookStore(new SystemClock());

ledgerContract(
  'memory',
  async () => {
    webhooks = new MemoryWebhookStore(new SystemClock());
    const ledger = new MemoryLedger(webhooks);
    return { ledger, reader: ledger };
  },
  {
    concurrent: async () => true,
    check: async ({ ledger }) => assertMemoryLedgerBalanced(ledger as MemoryLedger),
    events: async () => ({ webhooks, log: webhooks }),
  },
);
