import { expect } from 'chai';
import type { Options, Store } from 'express-rate-limit';
import { unique } from '../fixtures.js';

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/**
 * The behaviour every request-rate limiter store must show, whatever counts: fixed windows per
 * key, as express-rate-limit's `Store` interface asks (its own `MemoryStore` is the in-process
 * one). `make` returns a fresh store; the suite gives it its window with `init` and shuts it down
 * after each case.
 */
export function rateLimitStoreContract(name: string, make: () => Promise<Store>): void {
  describe(`rate limit store contract: ${name}`, () => {
    const stores: Store[] = [];
    const storeWith = async (windowMs: number): Promise<Store> => {
      const store = await make();
      await store.init?.({ windowMs } as Options);
      stores.push(store);
      return store;
    };
    afterEach(async () => {
      for (const s of stores.splice(0)) await s.shutdown?.();
    });

    it('when a key is hit, then each hit counts one in the same window, ending windowMs after the first; other keys apart', async () => {
      const s = await storeWith(60_000);
      const key = `k-${unique()}`;
      const before = Date.now();
      // Read at once: a store may hand back the same record, counting on.
      const first = { ...(await s.increment(key)) };
      const second = { ...(await s.increment(key)) };
      expect([first.totalHits, second.totalHits]).to.deep.equal([1, 2]);
      expect(first.resetTime!.getTime()).to.be.within(before + 60_000 - 2_000, Date.now() + 60_000 + 2_000);
      expect(second.resetTime!.getTime()).to.equal(first.resetTime!.getTime());
      expect((await s.increment(`${key}x`)).totalHits).to.equal(1);
      expect((await s.get!(key))?.totalHits).to.equal(2);
      expect(await s.get!(`k-${unique()}`)).to.equal(undefined);
    });

    it('when a hit is taken back, then the count drops by one; when the key is reset, then it starts again', async () => {
      const s = await storeWith(60_000);
      const key = `k-${unique()}`;
      for (let i = 0; i < 3; i++) await s.increment(key);
      await s.decrement(key);
      expect((await s.get!(key))?.totalHits).to.equal(2);
      await s.resetKey(key);
      expect(await s.get!(key)).to.equal(undefined);
      expect((await s.increment(key)).totalHits).to.equal(1);
    });

    it('when a window has ended, then the key is not counted and its next hit opens a new window at 1', async () => {
      const s = await storeWith(300);
      const key = `k-${unique()}`;
      await s.increment(key);
      await s.increment(key);
      await sleep(1_300);
      expect(await s.get!(key)).to.equal(undefined);
      expect((await s.increment(key)).totalHits).to.equal(1);
    });

    it('when many hits of one key arrive at once, then none is lost', async () => {
      const s = await storeWith(60_000);
      const key = `k-${unique()}`;
      const counts = await Promise.all(Array.from({ length: 20 }, () => s.increment(key)));
      expect(Math.max(...counts.map((c) => c.totalHits))).to.equal(20);
      expect((await s.get!(key))?.totalHits).to.equal(20);
    });
  });
}
