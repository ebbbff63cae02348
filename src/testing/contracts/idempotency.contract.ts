import { expect } from 'chai';
import { reasonOf } from '../fixtures.js';
import type { DomainError } from '../../domain/shared/errors.js';
import type { IdempotencyClaim, IdempotencyLease, IdempotencyStore } from '../../domain/shared/idempotency.port.js';
import { unique } from '../fixtures.js';

/** The lease of a claim that must have been granted. */
const leaseOf = (claim: IdempotencyClaim): IdempotencyLease => {
  expect(claim.state).to.equal('claimed');
  return (claim as { lease: IdempotencyLease }).lease;
};

/**
 * Decisions every IdempotencyStore makes alike. `make` builds a store whose claims wait at most
 * `waitMs` for another live claim; `concurrent` says whether the store shows real contention.
 */
export function idempotencyContract(
  name: string,
  make: (options: { waitMs: number }) => Promise<IdempotencyStore>,
  options: { concurrent: () => Promise<boolean> },
): void {
  describe(`idempotency store contract: ${name}`, () => {
    let store: IdempotencyStore;
    const now = new Date('2026-11-01T00:00:00.000Z');
    const req = (over: Partial<{ scope: string; key: string; fingerprint: string }> = {}) => ({
      scope: `agent:${unique()}`,
      key: `k-${unique()}`,
      fingerprint: 'f1',
      ...over,
    });
    const response = {
      status: 201,
      contentType: 'application/json; charset=utf-8',
      body: '{"id":"ord_1"}',
      headers: { location: '/api/v1/orders/ord_1', 'cache-control': 'no-store' },
    };

    beforeEach(async () => {
      store = await make({ waitMs: 300 });
    });

    it('when a key is new, then it is claimed; completed, then replayed with the stored response and headers', async () => {
      const r = req();
      await leaseOf(await store.claim(r, now)).complete(response, now);
      expect(await store.claim(r, now)).to.deep.equal({ state: 'replay', response });
    });

    it('when the same key comes with another request after completion, then idempotency-key-reused', async () => {
      const r = req();
      await leaseOf(await store.claim(r, now)).complete(response, now);
      expect(await reasonOf(store.claim({ ...r, fingerprint: 'f2' }, now))).to.equal('idempotency-key-reused');
    });

    it('when the first request is still running past the wait, then idempotency-key-in-use (same or other request)', async () => {
      const r = req();
      const lease = leaseOf(await store.claim(r, now));
      expect(await reasonOf(store.claim(r, now))).to.equal('idempotency-key-in-use');
      expect(await reasonOf(store.claim({ ...r, fingerprint: 'f2' }, now))).to.equal('idempotency-key-in-use');
      await lease.release();
    });

    it('when a duplicate arrives while the first runs, then it waits and replays the first response once it completes', async () => {
      const r = req();
      const lease = leaseOf(await store.claim(r, now));
      const duplicate = store.claim(r, now);
      await new Promise((resolve) => setTimeout(resolve, 50));
      await lease.complete(response, now);
      expect(await duplicate).to.deep.equal({ state: 'replay', response });
    });

    it('when a claim is released, then the waiting or next request runs again', async () => {
      const r = req();
      const lease = leaseOf(await store.claim(r, now));
      const waiting = store.claim(r, now);
      await new Promise((resolve) => setTimeout(resolve, 50));
      await lease.release();
      await leaseOf(await waiting).release();
      await leaseOf(await store.claim(r, now)).release();
    });

    it('when two callers use the same key, then each has its own', async () => {
      const key = `k-${unique()}`;
      const a = leaseOf(await store.claim(req({ key, fingerprint: 'fa' }), now));
      const b = leaseOf(await store.claim(req({ key, fingerprint: 'fb' }), now));
      await a.release();
      await b.release();
    });

    it('when keys are purged, then those created before the cut are gone, a batch at a time, and counted before', async () => {
      const then = new Date('2000-01-01T00:00:00.000Z');
      const cut = new Date('2000-01-02T00:00:00.000Z');
      const old = [req(), req(), req()];
      for (const r of old) await leaseOf(await store.claim(r, then)).complete(response, then);
      const recent = req();
      await leaseOf(await store.claim(recent, now)).complete(response, now);
      // A shared database may hold other old keys: count and purge at least these three.
      expect(await store.countBefore(cut)).to.be.at.least(3);
      expect(await store.purge(cut, 2)).to.equal(2);
      while ((await store.purge(cut, 2)) > 0);
      expect(await store.countBefore(cut)).to.equal(0);
      for (const r of old) await leaseOf(await store.claim(r, now)).release();
      const again = await store.claim(recent, now);
      expect(again.state, 'a key after the cut is kept').to.equal('replay');
    });

    it('when 20 requests claim one key at once, then one is claimed and the others replay its response', async function () {
      if (!(await options.concurrent())) this.skip(); // PGlite has one connection: no real contention to show
      const r = req();
      const slow = await make({ waitMs: 5_000 });
      const outcomes = await Promise.all(
        Array.from({ length: 20 }, () =>
          slow.claim(r, now).then(
            async (c) => {
              if (c.state === 'claimed') {
                await new Promise((resolve) => setTimeout(resolve, 100));
                await c.lease.complete(response, now);
              }
              return c.state;
            },
            (e: DomainError) => e.reason,
          ),
        ),
      );
      expect(outcomes.filter((o) => o === 'claimed')).to.have.length(1);
      expect(outcomes.filter((o) => o === 'replay')).to.have.length(19);
    });
  });
}
