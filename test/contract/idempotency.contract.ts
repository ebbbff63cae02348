import { expect } from 'chai';
import { reasonOf } from '../support/errors.js';
import { DomainError } from '../../src/domain/shared/errors.js';
import { IDEMPOTENCY_STALE_AFTER_MS, type IdempotencyStore } from '../../src/domain/shared/idempotency.port.js';
import { unique } from '../support/builders.js';


/** Decisions every IdempotencyStore makes alike. */
export function idempotencyContract(name: string, make: () => Promise<IdempotencyStore>, options: { concurrent: () => Promise<boolean> }): void {
  describe(`idempotency store contract: ${name}`, () => {
    let store: IdempotencyStore;
    const now = new Date('2026-11-01T00:00:00.000Z');
    const req = (over: Partial<{ scope: string; key: string; fingerprint: string }> = {}) => ({
      scope: `agent:${unique()}`,
      key: `k-${unique()}`,
      fingerprint: 'f1',
      ...over,
    });
    const response = { status: 201, contentType: 'application/json; charset=utf-8', body: '{"id":"ord_1"}' };

    beforeEach(async () => {
      store = await make();
    });

    it('when a key is new, then it is claimed; completed, then replayed with the stored response', async () => {
      const r = req();
      expect(await store.claim(r, now)).to.deep.equal({ state: 'claimed' });
      await store.complete(r, response, now);
      expect(await store.claim(r, now)).to.deep.equal({ state: 'replay', response });
    });

    it('when the same key comes with another request, then idempotency-key-reused, before and after completion', async () => {
      const r = req();
      await store.claim(r, now);
      expect(await reasonOf(store.claim({ ...r, fingerprint: 'f2' }, now))).to.equal('idempotency-key-reused');
      await store.complete(r, response, now);
      expect(await reasonOf(store.claim({ ...r, fingerprint: 'f2' }, now))).to.equal('idempotency-key-reused');
    });

    it('when the first request is still running, then idempotency-key-in-use', async () => {
      const r = req();
      await store.claim(r, now);
      expect(await reasonOf(store.claim(r, new Date(now.getTime() + 1000)))).to.equal('idempotency-key-in-use');
    });

    it('when a claim is older than the stale limit, then a retry takes it over', async () => {
      const r = req();
      await store.claim(r, now);
      expect(await store.claim(r, new Date(now.getTime() + IDEMPOTENCY_STALE_AFTER_MS + 1))).to.deep.equal({ state: 'claimed' });
    });

    it('when a claim is released, then the next request runs again', async () => {
      const r = req();
      await store.claim(r, now);
      await store.release(r);
      expect(await store.claim(r, now)).to.deep.equal({ state: 'claimed' });
    });

    it('when two callers use the same key, then each has its own', async () => {
      const key = `k-${unique()}`;
      const a = req({ key, fingerprint: 'fa' });
      const b = req({ key, fingerprint: 'fb' });
      await store.claim(a, now);
      expect(await store.claim(b, now)).to.deep.equal({ state: 'claimed' });
    });

    it('when keys are purged, then those created before the cut are gone', async () => {
      const old = req();
      await store.claim(old, new Date('2000-01-01T00:00:00.000Z'));
      await store.complete(old, response, new Date('2000-01-01T00:00:00.000Z'));
      expect(await store.purge(new Date('2000-01-02T00:00:00.000Z'))).to.be.greaterThanOrEqual(1);
      expect(await store.claim(old, now)).to.deep.equal({ state: 'claimed' });
    });

    it('when 20 requests claim one key at once, then exactly one is claimed and the rest are in use', async function () {
      if (!(await options.concurrent())) this.skip(); // PGlite has one connection: no real contention to show
      const r = req();
      const outcomes = await Promise.all(
        Array.from({ length: 20 }, () => store.claim(r, now).then((c) => c.state, (e: DomainError) => e.reason)),
      );
      expect(outcomes.filter((o) => o === 'claimed')).to.have.length(1);
      expect(outcomes.filter((o) => o === 'idempotency-key-in-use')).to.have.length(19);
    });
  });
}
