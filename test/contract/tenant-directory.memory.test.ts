import { SystemClock } from '../../src/adapters/crypto/node-crypto.js';
import { MemoryTenantDirectory } from '../../src/adapters/memory/tenant-directory.memory.js';
import { MemoryWebhookStore } from '../../src/adapters/memory/webhooks.memory.js';
import { tenantDirectoryContract } from 'partner-booking-wallet/testing';

/** The outbox the directory of the current case records into. */
let webhooks = new MemoryWebhookStore(new SystemClock());

tenantDirectoryContract(
  'memory',
  async () => {
    webhooks = new MemoryWebhookStore(new SystemClock());
    return new MemoryTenantDirectory(webhooks);
  },
  { concurrent: async () => true, events: async () => ({ webhooks, log: webhooks }) },
);
