import { expect } from 'chai';
import type { Redis } from 'ioredis';
import { SystemClock } from '../../src/adapters/crypto/node-crypto.js';
import { createReplayGuardRedis, RedisReplayGuard } from '../../src/adapters/redis/replay-guard.redis.js';
import { reasonOf, replayGuardContract } from 'partner-booking-wallet/testing';
import { testRedisUrl, uniqueRedisPrefix } from '../support/redis.js';

describe('replay guard on Redis', function () {
  let redis: Redis | null = null;
  before(async function () {
    const url = await testRedisUrl();
    if (url === null) this.skip();
    redis = createReplayGuardRedis(url);
    await redis.connect();
  });
  after(() => {
    redis?.disconnect();
  });

  // A prefix of its own per run, so runs sharing one Redis never see each other's ids.
  const prefix = uniqueRedisPrefix();
  replayGuardContract('Redis', async () => new RedisReplayGuard(redis!, new SystemClock(), prefix));

  it('when Redis cannot be reached, then a use is refused as service-unavailable, never accepted', async () => {
    const down = createReplayGuardRedis('redis://127.0.0.1:1');
    try {
      const guard = new RedisReplayGuard(down, new SystemClock(), prefix);
      expect(await reasonOf(guard.useOnce('ns', 'id', new Date(Date.now() + 60_000)))).to.equal('service-unavailable');
    } finally {
      down.disconnect();
    }
  });
});
