import { expect } from 'chai';
import type { PurgeableReplayGuard, ReplayGuard } from '../../domain/identity/replay-guard.port.js';
import { unique } from '../fixtures.js';

const inMs = (ms: number): Date => new Date(Date.now() + ms);
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/**
 * The behaviour every ReplayGuard must show, whatever stores it. `make` returns the guard (on
 * the real clock); a guard with `purge` is checked to remove expired records, one without is
 * expected to forget them by itself once they expire.
 */
export function replayGuardContract(name: string, make: () => Promise<ReplayGuard | PurgeableReplayGuard>): void {
  describe(`replay guard contract: ${name}`, () => {
    let g: ReplayGuard | PurgeableReplayGuard;
    beforeEach(async () => {
      g = await make();
    });
    const purgeable = (guard: ReplayGuard): guard is PurgeableReplayGuard => 'purge' in guard;

    it('when an id is used, then the first use is accepted and every later one refused; other ids and namespaces are apart', async () => {
      const id = `jti-${unique()}`;
      expect(await g.useOnce('ns-a', id, inMs(60_000))).to.equal(true);
      expect(await g.useOnce('ns-a', id, inMs(60_000))).to.equal(false);
      expect(await g.useOnce('ns-a', id, inMs(120_000))).to.equal(false);
      expect(await g.useOnce('ns-b', id, inMs(60_000))).to.equal(true);
      expect(await g.useOnce('ns-a', `${id}x`, inMs(60_000))).to.equal(true);
    });

    it('when many callers use the same id at once, then exactly one is accepted', async () => {
      const id = `jti-${unique()}`;
      const answers = await Promise.all(Array.from({ length: 25 }, () => g.useOnce('ns-race', id, inMs(60_000))));
      expect(answers.filter((a) => a)).to.have.length(1);
    });

    it('when an id has expired (and, where the store is purged, been purged), then it may be used again; a live one may not', async () => {
      const expiring = `jti-${unique()}`;
      const live = `jti-${unique()}`;
      expect(await g.useOnce('ns-exp', expiring, inMs(150))).to.equal(true);
      expect(await g.useOnce('ns-exp', live, inMs(60_000))).to.equal(true);
      await sleep(400);
      if (purgeable(g)) {
        const removed = await g.purge(new Date(), 1000);
        expect(removed).to.be.at.least(1);
      }
      expect(await g.useOnce('ns-exp', expiring, inMs(60_000))).to.equal(true);
      expect(await g.useOnce('ns-exp', live, inMs(60_000))).to.equal(false);
    });

    it('when ids are long or odd, then they are told apart exactly', async () => {
      const base = `${'x'.repeat(250)}-${unique()}`;
      expect(await g.useOnce('ns-odd', base, inMs(60_000))).to.equal(true);
      expect(await g.useOnce('ns-odd', `${base} `, inMs(60_000))).to.equal(true);
      expect(await g.useOnce('ns-odd', base.toUpperCase(), inMs(60_000))).to.equal(true);
      expect(await g.useOnce('ns-odd', `ü:${base}`, inMs(60_000))).to.equal(true);
      expect(await g.useOnce('ns-odd', base, inMs(60_000))).to.equal(false);
    });
  });
}
