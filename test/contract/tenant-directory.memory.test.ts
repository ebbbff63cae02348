import { MemoryTenantDirectory } from '../../src/adapters/memory/tenant-directory.memory.js';
import { tenantDirectoryContract } from './tenant-directory.contract.js';

tenantDirectoryContract('memory', async () => new MemoryTenantDirectory(), { concurrent: async () => true });
