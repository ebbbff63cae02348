import { SystemClock } from '../../src/adapters/crypto/node-crypto.js';
import { MemoryWebhookStore } from '../../src/adapters/memory/webhooks.memory.js';
import { webhookStoreContract } from 'partner-booking-wallet/testing';

webhookStoreContract(
  'memory',
  async () => {
    const store = new MemoryWebhookStore(new SystemClock());
    return { store, record: async (events) => store.record(events), log: store };
  },
  { concurrent: async () => true },
);
