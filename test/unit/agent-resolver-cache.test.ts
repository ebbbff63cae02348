import { expect } from 'chai';
import { CachedAgentResolver } from '../../src/adapters/cache/agent-resolver.cached.js';
import type { AgentResolver, ResolvedKey } from '../../src/domain/identity/agent-resolver.port.js';
import { keyRecordOf } from '../../src/testing/fixtures.js';

const value = (id: string): ResolvedKey => ({
  key: keyRecordOf('agt', { id, hash: id, prefix: 'pbk_', createdAt: new Date() }),
  agent: {
    id: 'agt',
    name: 'A',
    status: 'ACTIVE',
    channelCode: 'C',
    entitlements: [],
    discountBps: 0,
    createdAt: new Date(),
    livemode: true,
  },
  channel: {
    code: 'C',
    name: 'C',
    currency: 'THB',
    markupBps: 0,
    freeCancellationHours: 24,
    lateCancellationFeeBps: 5000,
    maxHoldMinutes: 30,
  },
});

class CountingResolver implements AgentResolver {
  calls = 0;
  pending: Array<() => void> = [];
  hold = false;
  async findByKeyHash(hash: string): Promise<ResolvedKey | null> {
    this.calls += 1;
    if (this.hold) await new Promise<void>((r) => this.pending.push(r));
    return hash.startsWith('none') ? null : value(hash);
  }
}

describe('key resolution cache', () => {
  it('when a key is looked up twice, then storage is asked once', async () => {
    const inner = new CountingResolver();
    const cache = new CachedAgentResolver(inner, { trusted: true }, { maxEntries: 10, ttlMs: 60_000 });
    await cache.findByKeyHash('a');
    await cache.findByKeyHash('a');
    expect(inner.calls).to.equal(1);
  });

  it('when a change is announced, then the next lookup goes to storage', async () => {
    const inner = new CountingResolver();
    const cache = new CachedAgentResolver(inner, { trusted: true }, { maxEntries: 10, ttlMs: 60_000 });
    await cache.findByKeyHash('a');
    cache.clear();
    await cache.findByKeyHash('a');
    expect(inner.calls).to.equal(2);
  });

  it('when the change feed is down, then every lookup goes to storage', async () => {
    const inner = new CountingResolver();
    const health = { trusted: false };
    const cache = new CachedAgentResolver(inner, health, { maxEntries: 10, ttlMs: 60_000 });
    await cache.findByKeyHash('a');
    await cache.findByKeyHash('a');
    expect(inner.calls).to.equal(2);
    expect(cache.size).to.equal(0);
  });

  it('when unknown keys are looked up, then nothing is cached for them', async () => {
    const inner = new CountingResolver();
    const cache = new CachedAgentResolver(inner, { trusted: true }, { maxEntries: 10, ttlMs: 60_000 });
    await cache.findByKeyHash('none-1');
    await cache.findByKeyHash('none-1');
    expect(inner.calls).to.equal(2);
    expect(cache.size).to.equal(0);
  });

  it('when more keys than the bound are used, then the least recently used is dropped', async () => {
    const inner = new CountingResolver();
    const cache = new CachedAgentResolver(inner, { trusted: true }, { maxEntries: 2, ttlMs: 60_000 });
    await cache.findByKeyHash('a');
    await cache.findByKeyHash('b');
    await cache.findByKeyHash('a');
    await cache.findByKeyHash('c'); // evicts b
    expect(cache.size).to.equal(2);
    inner.calls = 0;
    await cache.findByKeyHash('a');
    await cache.findByKeyHash('b');
    expect(inner.calls).to.equal(1);
  });

  it('when an entry is older than the ttl, then it is fetched again', async () => {
    let t = 0;
    const inner = new CountingResolver();
    const cache = new CachedAgentResolver(inner, { trusted: true }, { maxEntries: 10, ttlMs: 1000, now: () => t });
    await cache.findByKeyHash('a');
    t = 999;
    await cache.findByKeyHash('a');
    t = 1000;
    await cache.findByKeyHash('a');
    expect(inner.calls).to.equal(2);
  });

  it('when a change is announced while a lookup is in flight, then its result is not cached', async () => {
    const inner = new CountingResolver();
    const cache = new CachedAgentResolver(inner, { trusted: true }, { maxEntries: 10, ttlMs: 60_000 });
    inner.hold = true;
    const lookup = cache.findByKeyHash('a');
    await new Promise((r) => setImmediate(r));
    cache.clear();
    inner.pending.forEach((r) => r());
    inner.hold = false;
    await lookup;
    expect(cache.size).to.equal(0);
  });
});
