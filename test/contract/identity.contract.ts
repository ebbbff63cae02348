import { expect } from 'chai';
import { reasonOf } from '../support/errors.js';
import type { AgentDirectory } from '../../src/domain/identity/agent-directory.port.js';
import type { AgentResolver } from '../../src/domain/identity/agent-resolver.port.js';
import type { ApiKeyRecord } from '../../src/domain/identity/api-key.js';
import { unique } from '../support/builders.js';

export interface IdentityStores {
  readonly directory: AgentDirectory;
  readonly resolver: AgentResolver;
}

const key = (agentId: string, over: Partial<ApiKeyRecord> = {}): ApiKeyRecord => ({
  id: `key_${unique()}`,
  agentId,
  hash: `hash-${unique()}-${unique()}`,
  prefix: 'pbk_test',
  status: 'ACTIVE',
  revokedReason: null,
  createdAt: new Date('2026-01-01T00:00:00.000Z'),
  expiresAt: null,
  revokedAt: null,
  ...over,
});


/** The behaviour every AgentDirectory + AgentResolver pair must show, whatever stores it. */
export function identityContract(name: string, make: () => Promise<IdentityStores>): void {
  describe(`identity stores contract: ${name}`, () => {
    let s: IdentityStores;
    beforeEach(async () => {
      s = await make();
    });

    const agentOn = async (channel?: string) => {
      const code = channel ?? `C-${unique()}`;
      if ((await s.directory.findChannel(code)) === null) {
        await s.directory.createChannel({ code, name: 'Chan', currency: 'THB', markupBps: 150 });
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
      const k = key(agent.id, { expiresAt: new Date('2027-01-01T00:00:00.000Z') });
      await s.directory.insertKey(k);
      const r = await s.resolver.findByKeyHash(k.hash);
      expect(r?.key).to.deep.equal(k);
      expect(r?.agent).to.deep.include({ id: agent.id, status: 'ACTIVE', discountBps: 25 });
      expect(r?.agent.entitlements).to.deep.equal(['airport-transfer']);
      expect(r?.channel).to.deep.equal({ code: agent.channelCode, name: 'Chan', currency: 'THB', markupBps: 150 });
    });

    it('when a key is revoked, then it still resolves, with its status and reason', async () => {
      const agent = await agentOn();
      const k = key(agent.id);
      await s.directory.insertKey(k);
      const at = new Date('2026-02-01T00:00:00.000Z');
      const revoked = await s.directory.revokeKey(k.id, 'rotated', at);
      expect(revoked).to.deep.include({ status: 'REVOKED', revokedReason: 'rotated' });
      expect(revoked?.revokedAt?.toISOString()).to.equal(at.toISOString());
      const r = await s.resolver.findByKeyHash(k.hash);
      expect(r?.key).to.deep.include({ status: 'REVOKED', revokedReason: 'rotated' });
    });

    it('when a rotated key is later revoked as leaked, then leaked wins; a leaked one stays leaked', async () => {
      const agent = await agentOn();
      const k1 = key(agent.id);
      const k2 = key(agent.id);
      await s.directory.insertKey(k1);
      await s.directory.insertKey(k2);
      await s.directory.revokeKey(k1.id, 'rotated', new Date('2026-02-01T00:00:00.000Z'));
      const leaked = await s.directory.revokeKey(k1.id, 'leaked', new Date('2026-03-01T00:00:00.000Z'));
      expect(leaked?.revokedReason).to.equal('leaked');
      expect(leaked?.revokedAt?.toISOString()).to.equal('2026-02-01T00:00:00.000Z');
      await s.directory.revokeKey(k2.id, 'leaked', new Date('2026-02-01T00:00:00.000Z'));
      expect((await s.directory.revokeKey(k2.id, 'operator', new Date()))?.revokedReason).to.equal('leaked');
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
      const k = key(agent.id);
      await s.directory.insertKey(k);
      expect((await s.directory.setAgentStatus(agent.id, 'SUSPENDED'))?.status).to.equal('SUSPENDED');
      expect((await s.resolver.findByKeyHash(k.hash))?.agent.status).to.equal('SUSPENDED');
      await s.directory.setAgentStatus(agent.id, 'ACTIVE');
      expect((await s.resolver.findByKeyHash(k.hash))?.agent.status).to.equal('ACTIVE');
    });

    it('when a channel code is taken, then channel-exists; an agent on an unknown channel, channel-not-found', async () => {
      const code = `C-${unique()}`;
      await s.directory.createChannel({ code, name: 'One', currency: 'THB', markupBps: 0 });
      expect(await reasonOf(s.directory.createChannel({ code, name: 'Two', currency: 'USD', markupBps: 0 }))).to.equal('channel-exists');
      expect(
        await reasonOf(
          s.directory.createAgent({ id: `agt_${unique()}`, name: 'X', channelCode: `C-${unique()}`, entitlements: [], discountBps: 0, createdAt: new Date() }),
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
  });
}
