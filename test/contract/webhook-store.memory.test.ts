import { SystemClock } from '../../src/adapters/crypto/node-crypto.js';
import { MemoryWebhookStore } from '../../src/adapters/memory/webhooks.memory.js';
import { webhookStoreContract } from './webhook-store.contract.js';

webhookStoreContract(
  'memory',
  async () => {
    const store = new MemoryWebhookStore(new SystemClock());
    return { store, record: async (events) => store.record(events) };
  },
  { concurrent: async () => true },
);
