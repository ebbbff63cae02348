import { expect } from 'chai';
import type { LoginThrottleStore } from '../../domain/identity/login-throttle.port.js';
import type { SigningKeyStore, StoredSigningKey } from '../../domain/identity/signing-key-store.port.js';
import { unique } from '../fixtures.js';

const policy = { maxAttempts: 3, windowSeconds: 60, lockSeconds: 120 };
const at = (s: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, s));

const key = (createdAt: Date): StoredSigningKey => ({
  kid: `kid-${unique()}`,
  alg: 'ES256',
  privateJwk: { kty: 'EC', d: 'secret' },
  publicJwk: { kty: 'EC', x: 'x' },
  createdAt,
  retiredAt: null,
});

/** The behaviour every LoginThrottleStore and SigningKeyStore must show, whatever stores them. */
export function walletSecurityStoresContract(
  name: string,
  make: () => Promise<{ throttle: LoginThrottleStore; keys: SigningKeyStore }>,
  options: { concurrent: () => Promise<boolean> },
): void {
  describe(`login throttle and signing key stores contract: ${name}`, () => {
    let s: { throttle: LoginThrottleStore; keys: SigningKeyStore };
    beforeEach(async () => {
      s = await make();
    });

    it('when attempts exceed the limit, then the one over it locks for lockSeconds; the lock is not extended', async () => {
      const k = `t-${unique()}`;
      for (let i = 1; i <= 3; i++) expect(await s.throttle.hit(k, at(i), policy)).to.deep.equal({ attempts: i, lockedUntil: null });
      const over = await s.throttle.hit(k, at(4), policy);
      expect(over.attempts).to.equal(4);
      expect(over.lockedUntil?.toISOString()).to.equal(at(124).toISOString());
      expect((await s.throttle.hit(k, at(100), policy)).lockedUntil?.toISOString()).to.equal(at(124).toISOString());
    });

    it('when the lock has ended, then counting starts over', async () => {
      const k = `t-${unique()}`;
      for (let i = 1; i <= 4; i++) await s.throttle.hit(k, at(i), policy);
      expect(await s.throttle.hit(k, at(125), policy)).to.deep.equal({ attempts: 1, lockedUntil: null });
    });

    it('when the window passes without a lock, then counting starts over', async () => {
      const k = `t-${unique()}`;
      await s.throttle.hit(k, at(0), policy);
      await s.throttle.hit(k, at(1), policy);
      expect(await s.throttle.hit(k, at(61), policy)).to.deep.equal({ attempts: 1, lockedUntil: null });
    });

    it('when attempts are released, then one or all are forgotten; unknown keys are a no-op', async () => {
      const k = `t-${unique()}`;
      await s.throttle.hit(k, at(0), policy);
      await s.throttle.hit(k, at(1), policy);
      await s.throttle.release(k, false);
      expect((await s.throttle.hit(k, at(2), policy)).attempts).to.equal(2);
      await s.throttle.release(k, true);
      expect((await s.throttle.hit(k, at(3), policy)).attempts).to.equal(1);
      await s.throttle.release(`t-${unique()}`, true);
    });

    it('when expired keys are purged, then keys past their window with no lock in force go and the others stay', async () => {
      const [idle, locked, recent] = [`t-${unique()}`, `t-${unique()}`, `t-${unique()}`];
      await s.throttle.hit(idle, at(0), policy);
      for (let i = 1; i <= 4; i++) await s.throttle.hit(locked, at(i), policy); // locked until at(124)
      await s.throttle.hit(recent, at(50), policy);
      expect(await s.throttle.purgeExpired(at(70), 60)).to.be.greaterThanOrEqual(1);
      // The idle key starts over (it was gone); the locked and the recent ones still count.
      expect((await s.throttle.hit(idle, at(71), policy)).attempts).to.equal(1);
      expect((await s.throttle.hit(locked, at(72), policy)).lockedUntil?.toISOString()).to.equal(at(124).toISOString());
      expect((await s.throttle.hit(recent, at(73), policy)).attempts).to.equal(2);
    });

    it('when many attempts arrive at once, then each is counted', async function () {
      // PGlite has one connection: it cannot run these concurrently.
      if (!(await options.concurrent())) this.skip();
      const k = `t-${unique()}`;
      const states = await Promise.all(Array.from({ length: 20 }, () => s.throttle.hit(k, at(5), { ...policy, maxAttempts: 100 })));
      expect(states.map((x) => x.attempts).sort((a, b) => a - b)).to.deep.equal(Array.from({ length: 20 }, (_, i) => i + 1));
    });

    it('when a ring has no key, then ensureActive stores the candidate; later candidates get the same key', async () => {
      const ring = `ring-${unique()}`;
      const first = await s.keys.ensureActive(ring, key(at(0)));
      const again = await s.keys.ensureActive(ring, key(at(1)));
      expect(again.kid).to.equal(first.kid);
      expect(again.privateJwk).to.deep.equal({ kty: 'EC', d: 'secret' });
      expect((await s.keys.listUsable(ring, at(0))).map((k) => k.kid)).to.deep.equal([first.kid]);
    });

    it('when several instances start at once, then they all end with one and the same key', async function () {
      // PGlite has one connection: it cannot run these concurrently.
      if (!(await options.concurrent())) this.skip();
      const ring = `ring-${unique()}`;
      const got = await Promise.all(Array.from({ length: 8 }, (_, i) => s.keys.ensureActive(ring, key(at(i)))));
      expect(new Set(got.map((k) => k.kid)).size).to.equal(1);
      expect(await s.keys.listUsable(ring, at(0))).to.have.length(1);
    });

    it('when a ring is rotated, then the new key is active and the old one usable until the cutoff passes its retirement', async () => {
      const ring = `ring-${unique()}`;
      const old = await s.keys.ensureActive(ring, key(at(0)));
      const next = key(at(10));
      const { active, retired } = await s.keys.rotate(ring, next, at(10));
      expect(active.kid).to.equal(next.kid);
      expect(retired?.kid).to.equal(old.kid);
      expect(retired?.retiredAt?.toISOString()).to.equal(at(10).toISOString());
      expect((await s.keys.listUsable(ring, at(5))).map((k) => k.kid)).to.deep.equal([next.kid, old.kid]);
      expect((await s.keys.listUsable(ring, at(10))).map((k) => k.kid)).to.deep.equal([next.kid]);
      expect((await s.keys.ensureActive(ring, key(at(20)))).kid).to.equal(next.kid);
    });

    it('when two rotations race, then one active key remains', async function () {
      // PGlite has one connection: it cannot run these concurrently.
      if (!(await options.concurrent())) this.skip();
      const ring = `ring-${unique()}`;
      await s.keys.ensureActive(ring, key(at(0)));
      const results = await Promise.all([s.keys.rotate(ring, key(at(1)), at(1)), s.keys.rotate(ring, key(at(1)), at(1))]);
      const usable = await s.keys.listUsable(ring, at(2));
      expect(usable).to.have.length(1);
      expect(results.map((r) => r.active.kid)).to.include(usable[0]!.kid);
    });
  });
}
