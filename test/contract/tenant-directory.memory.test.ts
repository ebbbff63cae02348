import { MemoryTenantDirectory } from '../../src/adapters/memory/tenant-directory.memory.js';
import { tenantDirectoryContract } from 'partner-booking-wallet/testing';

tenantDirectoryContract('memory', async () => new MemoryTenantDirectory(), { concurrent: async () => true });
