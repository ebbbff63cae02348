import { MemoryIdempotencyStore } from '../../src/adapters/memory/idempotency.memory.js';
import { idempotencyContract } from 'partner-booking-wallet/testing';

idempotencyContract('memory', async ({ waitMs }) => new MemoryIdempotencyStore({ waitMs }), { concurrent: async () => true });
