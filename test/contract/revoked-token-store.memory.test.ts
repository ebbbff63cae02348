import { MemoryRevokedTokenStore } from '../../src/adapters/memory/token-revocation.memory.js';
import { revokedTokenStoreContract } from 'partner-booking-wallet/testing';

revokedTokenStoreContract('memory', async () => new MemoryRevokedTokenStore());
