import { expect } from 'chai';
import type { RevokedTokenStore } from '../../adapters/cache/token-revocation-list.cached.js';
import type { RevokedToken } from '../../domain/identity/token-revocation.port.js';
import { unique } from '../fixtures.js';

const inMs = (ms: number): Date => new Date(Date.now() + ms);
const seconds = (d: Date): number => Math.floor(d.getTime() / 1000);

const revoked = (expiresAt: Date): RevokedToken => ({ jti: `jti-${unique()}`, tenantId: `ten-${unique()}`, expiresAt });

/**
 * The behaviour every RevokedTokenStore must show, whatever stores it: the revocations behind
 * each instance's in-memory list. `make` may hand back a store shared with other tests (rows of
 * other tests may be present), so each case reads only its own jtis.
 */
export function revokedTokenStoreContract(name: string, make: () => Promise<RevokedTokenStore>): void {
  describe(`revoked token store contract: ${name}`, () => {
    let s: RevokedTokenStore;
    beforeEach(async () => {
      s = await make();
    });

    it('when a jti is revoked, then it is recorded, and another jti is not', async () => {
      const token = revoked(inMs(60_000));
      expect(await s.has(token.jti)).to.equal(false);
      await s.insert(token, new Date());
      expect(await s.has(token.jti)).to.equal(true);
      expect(await s.has(`${token.jti}x`)).to.equal(false);
    });

    it('when the same jti is revoked twice, then the second changes nothing (its first expiry stands)', async () => {
      const token = revoked(inMs(60_000));
      await s.insert(token, new Date());
      await s.insert({ ...token, expiresAt: inMs(3_600_000) }, new Date());
      const mine = (await s.listLive(new Date())).filter((r) => r.jti === token.jti);
      expect(mine).to.deep.equal([{ jti: token.jti, exp: seconds(token.expiresAt) }]);
    });

    it('when the live revocations are listed, then those whose token expires after the instant are, with exp in seconds', async () => {
      const live = revoked(inMs(120_000));
      const expired = revoked(inMs(-120_000));
      await s.insert(live, new Date());
      await s.insert(expired, new Date());
      const listed = (await s.listLive(new Date())).filter((r) => r.jti === live.jti || r.jti === expired.jti);
      expect(listed).to.deep.equal([{ jti: live.jti, exp: seconds(live.expiresAt) }]);
    });

    it('when revocations are purged, then only those expired before the instant go, counted', async () => {
      const old = revoked(inMs(-3_600_000));
      const older = revoked(inMs(-7_200_000));
      const live = revoked(inMs(3_600_000));
      for (const t of [old, older, live]) await s.insert(t, new Date());
      expect(await s.purge(inMs(-60_000))).to.be.at.least(2);
      expect([await s.has(old.jti), await s.has(older.jti), await s.has(live.jti)]).to.deep.equal([false, false, true]);
      expect(await s.purge(inMs(-60_000))).to.equal(0);
    });
  });
}
