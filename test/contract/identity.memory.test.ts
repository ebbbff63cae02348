import { SystemClock } from '../../src/adapters/crypto/node-crypto.js';
import { MemoryIdentityStore } from '../../src/adapters/memory/identity.memory.js';
import { MemoryWebhookStore } from '../../src/adapters/memory/webhooks.memory.js';
import { identityContract } from 'partner-booking-wallet/testing';

/** The outbox the store of the current case records into. */
let webhooks = new MemoryWebhookStore(new SystemClock());

identityContract(
  'memory',
  async () => {
    webhooks = new MemoryWebhookStore(new SystemClock());
    const store = new MemoryIdentityStore(undefined, webhooks);
    return { directory: store, resolver: store, usage: store };
  },
  { events: async () => ({ webhooks, log: webhooks }) },
);
