import { MemoryLoginThrottle } from '../../src/adapters/memory/login-throttle.memory.js';
import { MemorySigningKeyStore } from '../../src/adapters/memory/signing-key-store.memory.js';
import { walletSecurityStoresContract } from './wallet-security-stores.contract.js';

walletSecurityStoresContract('memory', async () => ({ throttle: new MemoryLoginThrottle(), keys: new MemorySigningKeyStore() }), {
  concurrent: async () => true,
});
