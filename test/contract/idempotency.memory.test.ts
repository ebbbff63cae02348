import { MemoryIdempotencyStore } from '../../src/adapters/memory/idempotency.memory.js';
import { idempotencyContract } from './idempotency.contract.js';

idempotencyContract('memory', async () => new MemoryIdempotencyStore(), { concurrent: async () => true });
