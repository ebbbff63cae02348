import { SystemClock } from '../../src/adapters/crypto/node-crypto.js';
import { MemoryIdentityStore } from '../../src/adapters/memory/identity.memory.js';
import { MemorySecurityEvents } from '../../src/adapters/memory/security-events.memory.js';
import { MemoryWebhookStore } from '../../src/adapters/memory/webhooks.memory.js';
import { securityEventsContract } from 'partner-booking-wallet/testing';

securityEventsContract('memory', async () => {
  const events = new MemorySecurityEvents();
  const webhooks = new MemoryWebhookStore(new SystemClock(), events);
  return { events, directory: new MemoryIdentityStore(undefined, webhooks, events), webhooks };
});
