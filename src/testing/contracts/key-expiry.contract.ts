import { expect } from 'chai';
import type { AgentDirectory } from '../../domain/identity/agent-directory.port.js';
import type { KeyExpiryNotices } from '../../domain/identity/key-expiry.port.js';
import { keyRecordOf, unique } from '../fixtures.js';
import { listenAs, type EmittedEvents } from './events.js';

/** A key store, its expiry notices and the webhook outbox they record into, of one adapter family. */
export interface KeyExpiryStores {
  readonly directory: AgentDirectory;
  readonly notices: KeyExpiryNotices;
  readonly events: EmittedEvents;
}

const DAY_MS = 86_400_000;

/** The KeyExpiryNotices port's contract, run over each adapter. */
export function keyExpiryContract(name: string, make: () => Promise<KeyExpiryStores>): void {
  describe(`key expiry notices contract: ${name}`, () => {
    let s: KeyExpiryStores;
    beforeEach(async () => {
      s = await make();
    });

    const agent = async () => {
      const code = `C-${unique()}`;
      await s.directory.createChannel({
        code,
        name: 'C',
        currency: 'THB',
        markupBps: 0,
        freeCancellationHours: 24,
        lateCancellationFeeBps: 0,
        maxHoldMinutes: 30,
      });
      return s.directory.createAgent({
        id: `agt_${unique()}`,
        name: 'A',
        channelCode: code,
        entitlements: [],
        discountBps: 0,
        createdAt: new Date(),
      });
    };
    /** A moment of its own far ahead, so that keys of other cases never fall in its window. */
    const farAhead = () => new Date(Date.UTC(2090, 0, 1) + Math.floor(Math.random() * 1_000_000) * DAY_MS * 0.01);

    it('when keys near their expiry, then each due key is noticed once with api_key.expiring; later, revoked or unexpiring keys are not', async () => {
      const a = await agent();
      const owner = { kind: 'agent' as const, id: a.id };
      const seen = await listenAs(s.events, owner, ['api_key.expiring']);
      const now = farAhead();
      const due = keyRecordOf(a.id, { createdAt: new Date(), expiresAt: new Date(now.getTime() + 5 * DAY_MS) });
      const later = keyRecordOf(a.id, { createdAt: new Date(), expiresAt: new Date(now.getTime() + 8 * DAY_MS) });
      const never = keyRecordOf(a.id, { createdAt: new Date() });
      const revoked = keyRecordOf(a.id, { createdAt: new Date(), expiresAt: new Date(now.getTime() + 2 * DAY_MS) });
      for (const k of [due, later, never, revoked]) await s.directory.insertKey(k);
      await s.directory.revokeKey(revoked.id, 'operator', new Date());
      const sent = await s.notices.sendDue(now, 7 * DAY_MS, 100);
      expect(sent.map((k) => k.id)).to.deep.equal([due.id]);
      expect(await s.notices.sendDue(now, 7 * DAY_MS, 100)).to.deep.equal([]);
      expect(await seen()).to.deep.equal([{ type: 'api_key.expiring', id: due.id }]);
      const dayAfter = new Date(now.getTime() + 2 * DAY_MS);
      expect((await s.notices.sendDue(dayAfter, 7 * DAY_MS, 100)).map((k) => k.id)).to.deep.equal([later.id]);
    });

    it('when several runs claim notices at once, then every due key is noticed by exactly one of them', async () => {
      const a = await agent();
      const owner = { kind: 'agent' as const, id: a.id };
      const seen = await listenAs(s.events, owner, ['api_key.expiring']);
      const now = farAhead();
      const keys = Array.from({ length: 6 }, (_, i) =>
        keyRecordOf(a.id, { createdAt: new Date(), expiresAt: new Date(now.getTime() + DAY_MS + i * 1000) }),
      );
      for (const k of keys) await s.directory.insertKey(k);
      const runs = await Promise.all([1, 2, 3].map(() => s.notices.sendDue(now, 7 * DAY_MS, 4)));
      const again = await s.notices.sendDue(now, 7 * DAY_MS, 100);
      const all = [...runs.flat(), ...again].map((k) => k.id);
      expect(all.slice().sort()).to.deep.equal(keys.map((k) => k.id).sort());
      expect((await seen()).map((e) => e.id).sort()).to.deep.equal(keys.map((k) => k.id).sort());
    });
  });
}
