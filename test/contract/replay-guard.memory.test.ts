import { SystemClock } from '../../src/adapters/crypto/node-crypto.js';
import { MemoryReplayGuard } from '../../src/adapters/memory/replay-guard.memory.js';
import { replayGuardContract } from 'partner-booking-wallet/testing';

replayGuardContract('memory', async () => new MemoryReplayGuard(new SystemClock()));
