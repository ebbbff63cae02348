import { MemoryLoginThrottle } from '../../src/adapters/memory/login-throttle.memory.js';
import { MemorySigningKeyStore } from '../../src/adapters/memory/signing-key-store.memory.js';
import { walletSecurityStoresContract } from 'partner-booking-wallet/testing';

walletSecurityStoresContract('memory', async () => ({ throttle: new MemoryLoginThrottle(), keys: new MemorySigningKeyStore() }), {
  concurrent: async () => true,
});
