import { expect } from 'chai';
import { startTestApp, type TestApp } from '../support/app.js';
import { unique } from '../support/builders.js';
import { HOUR_MS, ManualClock } from '../support/clock.js';

/** The retention purge removes one-time identifiers past their expiry, on the service's own store. */
for (const memory of [true, false]) {
  describe(`retention purge of one-time identifiers (${memory ? 'memory' : 'database'})`, () => {
    const clock = new ManualClock();
    let app: TestApp;
    before(async () => {
      app = await startTestApp({ memory, clock });
    });
    after(() => app.stop());

    it('when an identifier has expired, then the purge forgets it (it may be used again); a live one stays refused', async () => {
      const guard = app.service.ports.replayGuard;
      const expired = `jti-${unique()}`;
      const live = `jti-${unique()}`;
      expect(await guard.useOnce('dpop-proof', expired, new Date(clock.now().getTime() - HOUR_MS))).to.equal(true);
      expect(await guard.useOnce('dpop-proof', live, new Date(clock.now().getTime() + HOUR_MS))).to.equal(true);
      await app.service.core.admin.purgeExpired.execute({ dryRun: false });
      expect(await guard.useOnce('dpop-proof', expired, new Date(clock.now().getTime() + HOUR_MS))).to.equal(true);
      expect(await guard.useOnce('dpop-proof', live, new Date(clock.now().getTime() + HOUR_MS))).to.equal(false);
    });
  });
}
