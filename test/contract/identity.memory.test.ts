import { MemoryIdentityStore } from '../../src/adapters/memory/identity.memory.js';
import { identityContract } from './identity.contract.js';

identityContract('memory', async () => {
  const store = new MemoryIdentityStore();
  return { directory: store, resolver: store, usage: store };
});
