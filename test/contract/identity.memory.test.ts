import { MemoryIdentityStore } from '../../src/adapters/memory/identity.memory.js';
import { identityContract } from 'partner-booking-wallet/testing';

identityContract('memory', async () => {
  const store = new MemoryIdentityStore();
  return { directory: store, resolver: store, usage: store };
});
