import { MemoryIdempotencyStore } from '../../src/adapters/memory/idempotency.memory.js';
import { idempotencyContract } from './idempotency.contract.js';

idempotencyContract('memory', async ({ waitMs }) => new MemoryIdempotencyStore({ waitMs }), { concurrent: async () => true });
