import { SystemClock } from '../../src/adapters/crypto/node-crypto.js';
import { MemoryIdentityStore } from '../../src/adapters/memory/identity.memory.js';
import { MemoryWebhookStore } from '../../src/adapters/memory/webhooks.memory.js';
import { keyExpiryContract } from 'partner-booking-wallet/testing';

keyExpiryContract('memory', async () => {
  const webhooks = new MemoryWebhookStore(new SystemClock());
  const store = new MemoryIdentityStore(undefined, webhooks);
  return { directory: store, notices: store, events: { webhooks, log: webhooks } };
});
