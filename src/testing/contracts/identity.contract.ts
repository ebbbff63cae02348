import { expect } from 'chai';
import { reasonOf } from '../fixtures.js';
import type { AgentDirectory } from '../../domain/identity/agent-directory.port.js';
import type { AgentResolver } from '../../domain/identity/agent-resolver.port.js';
import type { KeyUsageStore } from '../../domain/identity/key-usage.port.js';
import { MAX_LIVE_KEYS_PER_AGENT, type ApiKeyRecord } from '../../domain/identity/api-key.js';
import { keyRecordOf, unique } from '../fixtures.js';
import { listenAs, type EmittedEvents, type EventSeen } from './events.js';

export interface IdentityStores {
  readonly directory: AgentDirectory;
  readonly resolver: AgentResolver;
  readonly usage: KeyUsageStore;
}

const TERMS = { freeCancellationHours: 24, lateCancellationFeeBps: 5000, maxHoldMinutes: 30 };

/** The behaviour every AgentDirectory + AgentResolver pair must show, whatever stores it. */
export function identityContract(
  name: string,
  make: () => Promise<IdentityStores>,
  options: {
    /** The webhook store and outbox reader the directory of the last `make()` records into; without it the event cases are skipped. */
    events?: () => Promise<EmittedEvents>;
  } = {},
): void {
  describe(`identity stores contract: ${name}`, () => {
    let s: IdentityStores;
    beforeEach(async () => {
      s = await make();
    });

    const agentOn = async (channel?: string) => {
      const code = channel ?? `C-${unique()}`;
      if ((await s.directory.findChannel(code)) === null) {
        await s.directory.createChannel({ code, name: 'Chan', currency: 'THB', markupBps: 150, ...TERMS });
      }
      return s.directory.createAgent({
        id: `agt_${unique()}`,
        name: 'Agent',
        channelCode: code,
        entitlements: ['airport-transfer'],
        discountBps: 25,
        createdAt: new Date('2026-01-01T00:00:00.000Z'),
      });
    };

    it('when a key hash is unknown, then the resolver returns null', async () => {
      expect(await s.resolver.findByKeyHash(`nothing-${unique()}`)).to.equal(null);
    });

    it('when a key is stored, then its hash resolves to the key, its agent and the channel', async () => {
      const agent = await agentOn();
      const k = keyRecordOf(agent.id, { expiresAt: new Date('2027-01-01T00:00:00.000Z') });
      await s.directory.insertKey(k);
      const r = await s.resolver.findByKeyHash(k.hash);
      expect(r?.key).to.deep.equal(k);
      expect(r?.agent).to.deep.include({ id: agent.id, status: 'ACTIVE', discountBps: 25 });
      expect(r?.agent.entitlements).to.deep.equal(['airport-transfer']);
      expect(r?.channel).to.deep.equal({ code: agent.channelCode, name: 'Chan', currency: 'THB', markupBps: 150, ...TERMS });
    });

    it('when a key is revoked, then it still resolves, with its status and reason', async () => {
      const agent = await agentOn();
      const k = keyRecordOf(agent.id);
      await s.directory.insertKey(k);
      const at = new Date('2026-02-01T00:00:00.000Z');
      const revoked = (await s.directory.revokeKey(k.id, 'rotated', at))?.key;
      expect(revoked).to.deep.include({ status: 'REVOKED', revokedReason: 'rotated' });
      expect(revoked?.revokedAt?.toISOString()).to.equal(at.toISOString());
      const r = await s.resolver.findByKeyHash(k.hash);
      expect(r?.key).to.deep.include({ status: 'REVOKED', revokedReason: 'rotated' });
    });

    it('when a rotated key is later revoked as leaked, then leaked wins; a leaked one stays leaked', async () => {
      const agent = await agentOn();
      const k1 = keyRecordOf(agent.id);
      const k2 = keyRecordOf(agent.id);
      await s.directory.insertKey(k1);
      await s.directory.insertKey(k2);
      await s.directory.revokeKey(k1.id, 'rotated', new Date('2026-02-01T00:00:00.000Z'));
      const leaked = (await s.directory.revokeKey(k1.id, 'leaked', new Date('2026-03-01T00:00:00.000Z')))?.key;
      expect(leaked?.revokedReason).to.equal('leaked');
      expect(leaked?.revokedAt?.toISOString()).to.equal('2026-02-01T00:00:00.000Z');
      await s.directory.revokeKey(k2.id, 'leaked', new Date('2026-02-01T00:00:00.000Z'));
      expect((await s.directory.revokeKey(k2.id, 'operator', new Date()))?.key.revokedReason).to.equal('leaked');
    });

    it('when a key or agent does not exist, then revoke and status changes return null', async () => {
      expect(await s.directory.revokeKey(`key_${unique()}`, 'operator', new Date())).to.equal(null);
      expect(await s.directory.setAgentStatus(`agt_${unique()}`, 'SUSPENDED')).to.equal(null);
      expect(await s.directory.findAgent(`agt_${unique()}`)).to.equal(null);
      expect(await s.directory.findKey(`key_${unique()}`)).to.equal(null);
      expect(await s.directory.findChannel(`C-${unique()}`)).to.equal(null);
    });

    it('when an agent is suspended and re-activated, then resolution shows each status', async () => {
      const agent = await agentOn();
      const k = keyRecordOf(agent.id);
      await s.directory.insertKey(k);
      expect((await s.directory.setAgentStatus(agent.id, 'SUSPENDED'))?.status).to.equal('SUSPENDED');
      expect((await s.resolver.findByKeyHash(k.hash))?.agent.status).to.equal('SUSPENDED');
      await s.directory.setAgentStatus(agent.id, 'ACTIVE');
      expect((await s.resolver.findByKeyHash(k.hash))?.agent.status).to.equal('ACTIVE');
    });

    it('when a channel code is taken, then channel-exists; an agent on an unknown channel, channel-not-found', async () => {
      const code = `C-${unique()}`;
      await s.directory.createChannel({ code, name: 'One', currency: 'THB', markupBps: 0, ...TERMS });
      expect(await reasonOf(s.directory.createChannel({ code, name: 'Two', currency: 'USD', markupBps: 0, ...TERMS }))).to.equal(
        'channel-exists',
      );
      expect(
        await reasonOf(
          s.directory.createAgent({
            id: `agt_${unique()}`,
            name: 'X',
            channelCode: `C-${unique()}`,
            entitlements: [],
            discountBps: 0,
            createdAt: new Date(),
          }),
        ),
      ).to.equal('channel-not-found');
    });

    it('when agents are listed by channel, then only that channel’s agents come back, oldest first', async () => {
      const code = `C-${unique()}`;
      const a = await agentOn(code);
      const b = await agentOn(code);
      await agentOn();
      const ids = (await s.directory.findAgentsByChannel(code)).map((x) => x.id);
      expect(ids).to.have.members([a.id, b.id]);
      expect(ids).to.have.length(2);
    });

    it('when every agent is listed, then the ones created here come back once each, oldest first', async () => {
      const a = await agentOn();
      const b = await agentOn();
      const listed = await s.directory.listAgents();
      const mine = listed.filter((x) => x.id === a.id || x.id === b.id);
      expect(mine).to.deep.equal([a, b].sort((x, y) => (x.id < y.id ? -1 : 1)));
      const times = listed.map((x) => x.createdAt.getTime());
      expect(times).to.deep.equal([...times].sort((x, y) => x - y));
    });

    it('when an agent is moved to another channel, then its key resolves to that channel; an unknown channel changes nothing', async () => {
      const agent = await agentOn();
      const k = keyRecordOf(agent.id);
      await s.directory.insertKey(k);
      const target = `C-${unique()}`;
      await s.directory.createChannel({ code: target, name: 'Target', currency: 'USD', markupBps: 900, ...TERMS });
      const moved = await s.directory.setAgentChannel(agent.id, target);
      expect(moved).to.deep.equal({ ...agent, channelCode: target });
      const resolved = await s.resolver.findByKeyHash(k.hash);
      expect(resolved?.channel).to.include({ code: target, currency: 'USD', markupBps: 900 });
      expect(resolved?.agent.channelCode).to.equal(target);
      expect(await s.directory.findAgentsByChannel(target)).to.deep.equal([moved]);
      expect(await s.directory.findAgentsByChannel(agent.channelCode)).to.deep.equal([]);

      expect(await reasonOf(s.directory.setAgentChannel(agent.id, `C-${unique()}`))).to.equal('channel-not-found');
      expect((await s.directory.findAgent(agent.id))?.channelCode).to.equal(target);
      expect(await s.directory.setAgentChannel(`agt_${unique()}`, target)).to.equal(null);
    });

    it('when a channel is updated, then only the given settings change and resolution shows them', async () => {
      const agent = await agentOn();
      const k = keyRecordOf(agent.id);
      await s.directory.insertKey(k);
      const updated = await s.directory.updateChannel(agent.channelCode, { freeCancellationHours: 48, lateCancellationFeeBps: 2500 });
      expect(updated).to.deep.equal({
        code: agent.channelCode,
        name: 'Chan',
        currency: 'THB',
        markupBps: 150,
        freeCancellationHours: 48,
        lateCancellationFeeBps: 2500,
        maxHoldMinutes: 30,
      });
      expect((await s.resolver.findByKeyHash(k.hash))?.channel).to.deep.equal(updated);
      expect(await s.directory.updateChannel(`C-${unique()}`, { markupBps: 1 })).to.equal(null);
      const listed = (await s.directory.listChannels()).find((c) => c.code === agent.channelCode);
      expect(listed).to.deep.equal(updated);
    });

    it('when a key is rolled, then the new key names it and it stays usable until the overlap ends; it rolls only once', async () => {
      const agent = await agentOn();
      const k = keyRecordOf(agent.id);
      await s.directory.insertKey(k);
      const until = new Date('2026-01-01T01:00:00.000Z');
      const next = keyRecordOf(agent.id, { rolledFromKeyId: k.id });
      const stored = await s.directory.rollKey(k.id, next, until);
      expect(stored).to.deep.equal(next);
      const old = await s.directory.findKey(k.id);
      expect(old).to.deep.include({ status: 'REVOKED', revokedReason: 'rotated' });
      expect(old?.revokedAt?.toISOString()).to.equal(until.toISOString());
      expect((await s.resolver.findByKeyHash(next.hash))?.key.rolledFromKeyId).to.equal(k.id);
      // A second roll of the same key stores nothing.
      const again = keyRecordOf(agent.id, { rolledFromKeyId: k.id });
      expect(await s.directory.rollKey(k.id, again, until)).to.equal(null);
      expect(await s.directory.findKey(again.id)).to.equal(null);
      expect(await s.directory.rollKey(`key_${unique()}`, keyRecordOf(agent.id), until)).to.equal(null);
    });

    it('when two rolls of one key race, then exactly one stores its key', async () => {
      const agent = await agentOn();
      const k = keyRecordOf(agent.id);
      await s.directory.insertKey(k);
      const a = keyRecordOf(agent.id, { rolledFromKeyId: k.id });
      const b = keyRecordOf(agent.id, { rolledFromKeyId: k.id });
      const results = await Promise.all([s.directory.rollKey(k.id, a, new Date()), s.directory.rollKey(k.id, b, new Date())]);
      expect(results.filter((r) => r !== null)).to.have.length(1);
      expect((await s.directory.listKeys(agent.id)).map((x) => x.key.id)).to.have.length(2);
    });

    it('when a key is revoked (leaked, by the operator) or past its expiry, then a key it creates, its roll and its delete of a key it made are refused with invalid-api-key and change nothing; in its roll’s overlap it may still create', async () => {
      const agent = await agentOn();
      const at = new Date('2026-01-02T00:00:00.000Z');
      const leaked = keyRecordOf(agent.id);
      const byOperator = keyRecordOf(agent.id);
      const expired = keyRecordOf(agent.id, { expiresAt: new Date('2026-01-01T12:00:00.000Z') });
      for (const k of [leaked, byOperator, expired]) await s.directory.insertKey(k);
      const made = keyRecordOf(agent.id, { createdByKeyId: leaked.id });
      await s.directory.insertKey(made);
      await s.directory.revokeKey(leaked.id, 'leaked', at);
      await s.directory.revokeKey(byOperator.id, 'operator', at);
      for (const creator of [leaked, byOperator, expired]) {
        const child = keyRecordOf(agent.id, { createdByKeyId: creator.id, createdAt: at });
        expect(await reasonOf(s.directory.insertKey(child)), creator.id).to.equal('invalid-api-key');
        expect(await s.directory.findKey(child.id)).to.equal(null);
        const next = keyRecordOf(agent.id, { rolledFromKeyId: creator.id, createdAt: at });
        expect(await reasonOf(s.directory.rollKey(creator.id, next, new Date('2026-01-02T01:00:00.000Z')))).to.equal('invalid-api-key');
        expect(await s.directory.findKey(next.id)).to.equal(null);
      }
      expect((await s.directory.findKey(expired.id))?.status).to.equal('ACTIVE');
      expect(await reasonOf(s.directory.revokeCreatedKey(leaked.id, made.id, at))).to.equal('invalid-api-key');
      expect(await s.directory.findKey(made.id)).to.deep.include({ revokedReason: 'leaked' });
      // A rolled key authenticates until its overlap ends, so it may still create.
      const rolling = keyRecordOf(agent.id);
      await s.directory.insertKey(rolling);
      await s.directory.rollKey(rolling.id, keyRecordOf(agent.id, { rolledFromKeyId: rolling.id }), new Date('2026-01-03T00:00:00.000Z'));
      const inOverlap = keyRecordOf(agent.id, { createdByKeyId: rolling.id, createdAt: at });
      await s.directory.insertKey(inOverlap);
      expect((await s.directory.findKey(inOverlap.id))?.status).to.equal('ACTIVE');
    });

    it('when creates, a roll and deletes by a key race its leak report, then each key made is revoked as leaked with it, or its write was refused with invalid-api-key', async () => {
      for (let trial = 0; trial < 5; trial++) {
        const agent = await agentOn();
        const root = keyRecordOf(agent.id);
        await s.directory.insertKey(root);
        const earlier = keyRecordOf(agent.id, { createdByKeyId: root.id });
        await s.directory.insertKey(earlier);
        const children = Array.from({ length: 6 }, () => keyRecordOf(agent.id, { createdByKeyId: root.id }));
        const next = keyRecordOf(agent.id, { rolledFromKeyId: root.id });
        const writes = [
          ...children.map((c) => s.directory.insertKey(c)),
          s.directory.rollKey(root.id, next, new Date('2030-01-01T00:00:00.000Z')),
          s.directory.revokeCreatedKey(root.id, earlier.id, new Date('2026-01-01T00:00:01.000Z')),
        ];
        const leak = s.directory.revokeKey(root.id, 'leaked', new Date('2026-01-01T00:00:02.000Z'));
        const outcomes = await Promise.all(writes.map((w) => reasonOf(w)));
        await leak;
        for (const outcome of outcomes) expect(['resolved', 'invalid-api-key']).to.include(outcome);
        for (const k of [...children, next]) {
          const stored = await s.directory.findKey(k.id);
          if (stored !== null) expect(stored, k.id).to.deep.include({ status: 'REVOKED', revokedReason: 'leaked' });
        }
        expect(await s.directory.findKey(earlier.id)).to.deep.include({ status: 'REVOKED', revokedReason: 'leaked' });
      }
    });

    it('when a key is revoked as leaked, then every key rolled from it, transitively, is leaked too; other keys are not', async () => {
      const agent = await agentOn();
      const a = keyRecordOf(agent.id);
      const other = keyRecordOf(agent.id);
      await s.directory.insertKey(a);
      await s.directory.insertKey(other);
      const b = keyRecordOf(agent.id, { rolledFromKeyId: a.id, createdAt: new Date('2026-01-02T00:00:00.000Z') });
      await s.directory.rollKey(a.id, b, new Date('2030-01-01T00:00:00.000Z'));
      const c = keyRecordOf(agent.id, { rolledFromKeyId: b.id, createdAt: new Date('2026-01-03T00:00:00.000Z') });
      await s.directory.rollKey(b.id, c, new Date('2030-01-01T00:00:00.000Z'));
      const at = new Date('2026-01-04T00:00:00.000Z');
      const revoked = await s.directory.revokeKey(a.id, 'leaked', at);
      expect(revoked?.key).to.deep.include({ id: a.id, status: 'REVOKED', revokedReason: 'leaked' });
      // The rotation still ahead is brought forward to the leak.
      expect(revoked?.key.revokedAt?.toISOString()).to.equal(at.toISOString());
      expect(revoked?.rolled.map((k) => k.id)).to.have.members([b.id, c.id]);
      for (const id of [b.id, c.id]) {
        const stored = await s.directory.findKey(id);
        expect(stored).to.deep.include({ status: 'REVOKED', revokedReason: 'leaked' });
        expect(stored?.revokedAt?.toISOString()).to.equal(at.toISOString());
      }
      expect((await s.directory.findKey(other.id))?.status).to.equal('ACTIVE');
      // Revoking the middle of a lineage leaves its ancestors alone; operator revocation does not follow it.
      const d = keyRecordOf(agent.id);
      await s.directory.insertKey(d);
      const e = keyRecordOf(agent.id, { rolledFromKeyId: d.id });
      await s.directory.rollKey(d.id, e, new Date('2030-01-01T00:00:00.000Z'));
      expect((await s.directory.revokeKey(d.id, 'operator', at))?.rolled).to.deep.equal([]);
      expect((await s.directory.findKey(e.id))?.status).to.equal('ACTIVE');
    });

    describe('the bound on an agent’s keys', () => {
      const now = new Date('2026-03-01T00:00:00.000Z');
      const at = (ms: number) => new Date(now.getTime() + ms);
      /** An agent holding `n` keys that authenticate at `now`, issued before it. */
      const agentWithKeys = async (n: number) => {
        const agent = await agentOn();
        const keys: ApiKeyRecord[] = [];
        for (let i = 0; i < n; i++) keys.push(keyRecordOf(agent.id, { createdAt: at(-60_000) }));
        for (const k of keys) await s.directory.insertKey(k);
        return { agent, keys };
      };
      const liveIds = async (agentId: string, when: Date) =>
        (await s.directory.listKeys(agentId))
          .filter(({ key }) => key.status === 'ACTIVE' || (key.revokedAt !== null && key.revokedAt > when))
          .filter(({ key }) => key.expiresAt === null || key.expiresAt > when)
          .map(({ key }) => key.id);

      it('when the agent holds the most keys, then another one is refused with too-many-keys and nothing is stored', async () => {
        const { agent } = await agentWithKeys(MAX_LIVE_KEYS_PER_AGENT);
        const extra = keyRecordOf(agent.id, { createdAt: now });
        expect(await reasonOf(s.directory.insertKey(extra))).to.equal('too-many-keys');
        expect(await s.directory.findKey(extra.id)).to.equal(null);
        expect(await liveIds(agent.id, now)).to.have.length(MAX_LIVE_KEYS_PER_AGENT);
        // Another agent is not affected.
        const other = await agentOn();
        await s.directory.insertKey(keyRecordOf(other.id, { createdAt: now }));
      });

      it('when keys are revoked, expired or past a roll’s overlap, then they do not count; a key in its overlap does', async () => {
        const { agent, keys } = await agentWithKeys(MAX_LIVE_KEYS_PER_AGENT - 4);
        await s.directory.revokeKey(keys[0]!.id, 'operator', at(-1_000));
        // Past its overlap: no longer counted. In its overlap: counted until the end.
        await s.directory.revokeKey(keys[1]!.id, 'rotated', at(-1));
        await s.directory.revokeKey(keys[2]!.id, 'rotated', at(3_600_000));
        await s.directory.insertKey(keyRecordOf(agent.id, { createdAt: at(-60_000), expiresAt: now }));
        // 50 - 4 - 2 = 44 live: six more fit, the seventh does not.
        for (let i = 0; i < 6; i++) await s.directory.insertKey(keyRecordOf(agent.id, { createdAt: now }));
        expect(await reasonOf(s.directory.insertKey(keyRecordOf(agent.id, { createdAt: now })))).to.equal('too-many-keys');
        // Once the overlap has ended, its place is free.
        await s.directory.insertKey(keyRecordOf(agent.id, { createdAt: at(3_600_000) }));
        expect(await reasonOf(s.directory.insertKey(keyRecordOf(agent.id, { createdAt: at(3_600_000) })))).to.equal('too-many-keys');
      });

      it('when a roll with an overlap would make one key too many, then it is refused and the key stays unrolled; with no overlap it is not', async () => {
        const { agent, keys } = await agentWithKeys(MAX_LIVE_KEYS_PER_AGENT);
        const from = keys[0]!;
        const next = keyRecordOf(agent.id, { rolledFromKeyId: from.id, createdAt: now });
        expect(await reasonOf(s.directory.rollKey(from.id, next, at(60_000)))).to.equal('too-many-keys');
        expect(await s.directory.findKey(next.id)).to.equal(null);
        expect(await s.directory.findKey(from.id)).to.deep.include({ status: 'ACTIVE', revokedAt: null });
        // Ending the old key at once keeps the count at the bound: allowed.
        expect(await s.directory.rollKey(from.id, next, now)).to.deep.equal(next);
        expect(await liveIds(agent.id, now)).to.have.length(MAX_LIVE_KEYS_PER_AGENT);
        // One below the bound, a roll with an overlap fills it.
        await s.directory.revokeKey(keys[1]!.id, 'operator', now);
        const filled = keyRecordOf(agent.id, { rolledFromKeyId: keys[2]!.id, createdAt: now });
        expect(await s.directory.rollKey(keys[2]!.id, filled, at(60_000))).to.deep.equal(filled);
        expect(await liveIds(agent.id, now)).to.have.length(MAX_LIVE_KEYS_PER_AGENT);
      });

      it('when adds for one agent race (rolls of different keys, issues), then the bound still holds', async () => {
        const { agent, keys } = await agentWithKeys(MAX_LIVE_KEYS_PER_AGENT - 3);
        const outcomes = await Promise.allSettled([
          ...keys
            .slice(0, 6)
            .map((k) => s.directory.rollKey(k.id, keyRecordOf(agent.id, { rolledFromKeyId: k.id, createdAt: now }), at(60_000))),
          ...[0, 1, 2].map(() => s.directory.insertKey(keyRecordOf(agent.id, { createdAt: now }))),
        ]);
        const refused = outcomes.filter((o) => o.status === 'rejected');
        for (const o of refused) expect((o.reason as { reason?: string }).reason).to.equal('too-many-keys');
        expect(outcomes.length - refused.length).to.equal(3);
        expect(await liveIds(agent.id, now)).to.have.length(MAX_LIVE_KEYS_PER_AGENT);
      });
    });

    it('when uses are recorded, then the listing shows the latest and never moves back; unknown keys are ignored', async () => {
      const agent = await agentOn();
      const k1 = keyRecordOf(agent.id, { createdAt: new Date('2026-01-01T00:00:00.000Z') });
      const k2 = keyRecordOf(agent.id, { createdAt: new Date('2026-01-02T00:00:00.000Z') });
      await s.directory.insertKey(k1);
      await s.directory.insertKey(k2);
      const t1 = new Date('2026-05-01T10:00:00.000Z');
      const t2 = new Date('2026-05-01T10:00:30.000Z');
      await s.usage.recordUses(
        new Map([
          [k1.id, t2],
          [`key_${unique()}`, t1],
        ]),
      );
      await s.usage.recordUses(new Map([[k1.id, t1]]));
      const listed = await s.directory.listKeys(agent.id);
      expect(listed.map((x) => x.key.id)).to.deep.equal([k1.id, k2.id]);
      expect(listed[0]?.lastUsedAt?.toISOString()).to.equal(t2.toISOString());
      expect(listed[1]?.lastUsedAt).to.equal(null);
      expect(await s.directory.listKeys(`agt_${unique()}`)).to.deep.equal([]);
    });
    describe('events it records', () => {
      let agentId: string;
      let seen: () => Promise<EventSeen[]>;
      beforeEach(async function () {
        if (options.events === undefined) this.skip();
        agentId = (await agentOn()).id;
        seen = await listenAs(await options.events(), { kind: 'agent', id: agentId }, ['api_key.revoked']);
      });
      const revoked = (...ids: string[]): EventSeen[] => ids.map((id) => ({ type: 'api_key.revoked', id }));

      it('when a key is revoked, then exactly one api_key.revoked with its id; again for the same reason none, found leaked later one more', async () => {
        const k = keyRecordOf(agentId);
        const other = keyRecordOf(agentId);
        await s.directory.insertKey(k);
        await s.directory.insertKey(other);
        await s.directory.revokeKey(k.id, 'operator', new Date('2026-02-01T00:00:00.000Z'));
        expect(await seen()).to.deep.equal(revoked(k.id));
        await s.directory.revokeKey(k.id, 'operator', new Date('2026-02-02T00:00:00.000Z'));
        expect(await seen()).to.deep.equal(revoked(k.id));
        await s.directory.revokeKey(k.id, 'leaked', new Date('2026-02-03T00:00:00.000Z'));
        expect(await seen()).to.deep.equal(revoked(k.id, k.id));
        await s.directory.revokeKey(k.id, 'leaked', new Date('2026-02-04T00:00:00.000Z'));
        expect(await s.directory.revokeKey(`key_${unique()}`, 'leaked', new Date('2026-02-05T00:00:00.000Z'))).to.equal(null);
        expect(await seen()).to.deep.equal(revoked(k.id, k.id));
      });

      it('when a leak revokes a lineage, then one api_key.revoked for each key it revoked and none for the others', async () => {
        const a = keyRecordOf(agentId);
        const untouched = keyRecordOf(agentId);
        await s.directory.insertKey(a);
        await s.directory.insertKey(untouched);
        const b = keyRecordOf(agentId, { rolledFromKeyId: a.id });
        await s.directory.rollKey(a.id, b, new Date('2030-01-01T00:00:00.000Z'));
        const c = keyRecordOf(agentId, { rolledFromKeyId: b.id });
        await s.directory.rollKey(b.id, c, new Date('2030-01-01T00:00:00.000Z'));
        await s.directory.revokeKey(a.id, 'leaked', new Date('2026-02-01T00:00:00.000Z'));
        // One instant for all three: compared as members.
        expect(await seen()).to.have.deep.members(revoked(a.id, b.id, c.id));
      });
    });
  });
}
