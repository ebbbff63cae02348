import { expect } from 'chai';
import type { AgentDirectory } from '../../domain/identity/agent-directory.port.js';
import {
  apiKeyContext,
  apiKeyRefusedEvent,
  OPERATOR_CONTEXT,
  signInAttemptContext,
  tenantEvent,
  type NewSecurityEvent,
  type SecurityEvent,
} from '../../domain/security-events/security-event.js';
import type { SecurityEvents } from '../../domain/security-events/security-events.port.js';
import { pageRequest } from '../../domain/shared/page.js';
import { keyRecordOf, unique } from '../fixtures.js';
import type { WebhookStore } from '../../domain/webhooks/webhook-store.port.js';

/** A trail and the key store of the same adapter, which records into it. */
export interface SecurityEventStores {
  readonly events: SecurityEvents;
  readonly directory: AgentDirectory;
  /** The webhook store of the same adapter, recording endpoint changes into `events`. */
  readonly webhooks: WebhookStore;
}

const TERMS = { freeCancellationHours: 24, lateCancellationFeeBps: 5000, maxHoldMinutes: 30 };

/** The SecurityEvents port's contract, and the events the key stores record, run over each adapter. */
export function securityEventsContract(name: string, make: () => Promise<SecurityEventStores>): void {
  describe(`security events contract: ${name}`, () => {
    let s: SecurityEventStores;
    beforeEach(async () => {
      s = await make();
    });

    const agentOwner = () => ({ kind: 'agent' as const, id: `agt_${unique()}` });
    const event = (owner: { kind: 'agent'; id: string }, at: Date, over: Partial<NewSecurityEvent> = {}): NewSecurityEvent => ({
      type: 'api_key.created',
      owner,
      occurredAt: at,
      actor: { kind: 'operator', id: 'operator' },
      subject: { kind: 'api_key', id: `key_${unique()}` },
      ip: null,
      requestId: null,
      details: {},
      ...over,
    });
    const all = async (
      owner: { kind: 'agent' | 'tenant'; id: string },
      filter: { types?: SecurityEvent['type'][]; since?: Date; until?: Date } = {},
    ) => (await s.events.list({ owner, ...filter, page: pageRequest({ limit: 100 }) })).data;
    const agentWithKey = async () => {
      const code = `C-${unique()}`;
      await s.directory.createChannel({ code, name: 'Chan', currency: 'THB', markupBps: 0, ...TERMS });
      const agent = await s.directory.createAgent({
        id: `agt_${unique()}`,
        name: 'Agent',
        channelCode: code,
        entitlements: ['airport-transfer'],
        discountBps: 0,
        createdAt: new Date('2026-01-01T00:00:00.000Z'),
      });
      const key = keyRecordOf(agent.id, { createdAt: new Date() });
      await s.directory.insertKey(key, OPERATOR_CONTEXT);
      return { agent, key, owner: { kind: 'agent' as const, id: agent.id } };
    };

    it('when events are appended, then the owner’s list has them newest first with every field, and no other owner’s', async () => {
      const owner = agentOwner();
      const t0 = new Date('2026-03-01T10:00:00.000Z');
      await s.events.append(event(owner, t0, { ip: '203.0.113.9', requestId: 'req_1', details: { a: 1 } }));
      await s.events.append(event(owner, new Date(t0.getTime() + 1000), { type: 'api_key.revoked', details: { reason: 'revoked' } }));
      await s.events.append(event(agentOwner(), t0));
      const listed = await all(owner);
      expect(listed.map((e) => e.type)).to.deep.equal(['api_key.revoked', 'api_key.created']);
      expect(listed[1]).to.deep.include({
        ip: '203.0.113.9',
        requestId: 'req_1',
        details: { a: 1 },
        actor: { kind: 'operator', id: 'operator' },
      });
      expect(listed[1]!.occurredAt.toISOString()).to.equal(t0.toISOString());
      expect(listed[1]!.id).to.match(/^sev_/);
    });

    it('when the list is filtered by types, since and until, then only matching events come back (since inclusive, until exclusive)', async () => {
      const owner = agentOwner();
      const at = (m: number) => new Date(Date.UTC(2026, 2, 1, 10, m));
      await s.events.append(event(owner, at(0)));
      await s.events.append(event(owner, at(1), { type: 'api_key.rolled' }));
      await s.events.append(event(owner, at(2), { type: 'api_key.revoked', details: { reason: 'leaked' } }));
      expect((await all(owner, { types: ['api_key.rolled', 'api_key.revoked'] })).map((e) => e.type)).to.deep.equal([
        'api_key.revoked',
        'api_key.rolled',
      ]);
      expect((await all(owner, { since: at(1) })).map((e) => e.type)).to.deep.equal(['api_key.revoked', 'api_key.rolled']);
      expect((await all(owner, { until: at(1) })).map((e) => e.type)).to.deep.equal(['api_key.created']);
    });

    it('when a list is paged with a cursor, then every event comes once, newest first, and the last page has no cursor', async () => {
      const owner = agentOwner();
      const same = new Date('2026-03-01T10:00:00.000Z');
      for (let i = 0; i < 5; i++) await s.events.append(event(owner, i < 3 ? same : new Date(same.getTime() + i * 1000)));
      const seen: string[] = [];
      let cursor: string | null = null;
      for (let pages = 0; pages < 10; pages++) {
        const page = await s.events.list({ owner, page: pageRequest({ limit: 2, cursor }) });
        seen.push(...page.data.map((e) => e.id));
        cursor = page.nextCursor;
        if (cursor === null) break;
      }
      const everything = (await all(owner)).map((e) => e.id);
      expect(seen).to.deep.equal(everything);
      expect(new Set(seen).size).to.equal(5);
    });

    it('when a key is refused again in the same minute for the same reason, then one event is kept; another reason or minute is another', async () => {
      const owner = agentOwner();
      const key = { id: `key_${unique()}`, agentId: owner.id };
      const ctx = apiKeyContext(key.id, { ip: '198.51.100.7', requestId: 'req_x' });
      const minute = new Date('2026-03-01T10:00:05.000Z');
      expect(await s.events.append(apiKeyRefusedEvent(key, { reason: 'ip-not-allowed' }, ctx, minute))).to.equal(true);
      expect(
        await s.events.append(apiKeyRefusedEvent(key, { reason: 'ip-not-allowed' }, ctx, new Date(minute.getTime() + 50_000))),
      ).to.equal(false);
      expect(
        await s.events.append(apiKeyRefusedEvent(key, { reason: 'insufficient-scope', requiredScope: 'orders:write' }, ctx, minute)),
      ).to.equal(true);
      expect(
        await s.events.append(apiKeyRefusedEvent(key, { reason: 'ip-not-allowed' }, ctx, new Date(minute.getTime() + 60_000))),
      ).to.equal(true);
      const refused = await all(owner, { types: ['api_key.refused'] });
      expect(refused).to.have.length(3);
      expect(refused.map((e) => e.details['reason']).sort()).to.deep.equal(['insufficient-scope', 'ip-not-allowed', 'ip-not-allowed']);
      expect(refused.find((e) => e.details['reason'] === 'insufficient-scope')!.details).to.deep.equal({
        reason: 'insufficient-scope',
        requiredScope: 'orders:write',
      });
      expect(refused[0]).to.deep.include({ ip: '198.51.100.7', actor: { kind: 'api-key', id: key.id } });
    });

    it('when a user’s sign-in fails again in the same minute, for the same or another reason, then one event is kept; the next minute another', async () => {
      const tenantId = `tnt_${unique()}`;
      const subject = { kind: 'wallet_user', id: `usr_${unique()}` };
      const ctx = signInAttemptContext({ ip: '198.51.100.8', requestId: 'req_y' });
      const failed = (at: Date, reason: string) => tenantEvent('user.login_failed', tenantId, subject, ctx, at, { reason });
      const minute = new Date('2026-03-01T10:00:05.000Z');
      expect(await s.events.append(failed(minute, 'invalid-dpop-proof'))).to.equal(true);
      expect(await s.events.append(failed(new Date(minute.getTime() + 20_000), 'invalid-credentials'))).to.equal(false);
      expect(await s.events.append(failed(new Date(minute.getTime() + 40_000), 'invalid-dpop-proof'))).to.equal(false);
      expect(await s.events.append(failed(new Date(minute.getTime() + 60_000), 'invalid-credentials'))).to.equal(true);
      const kept = await all({ kind: 'tenant', id: tenantId }, { types: ['user.login_failed'] });
      expect(kept.map((e) => e.details['reason'])).to.deep.equal(['invalid-credentials', 'invalid-dpop-proof']);
      expect(kept[0]).to.deep.include({ actor: { kind: 'user', id: 'anonymous' }, subject });
    });

    it('when the purge runs, then only events older than the cut-off are removed, in batches', async () => {
      const owner = agentOwner();
      const cutoff = new Date('2020-01-01T00:00:00.000Z');
      for (let i = 1; i <= 3; i++) await s.events.append(event(owner, new Date(cutoff.getTime() - i * 1000)));
      await s.events.append(event(owner, new Date(cutoff.getTime() + 1000)));
      expect(await s.events.countBefore(cutoff)).to.be.at.least(3);
      let removed = 0;
      for (let i = 0; i < 100; i++) {
        const n = await s.events.purgeBefore(cutoff, 2);
        removed += n;
        if (n < 2) break;
      }
      expect(removed).to.be.at.least(3);
      expect(await all(owner)).to.have.length(1);
      expect(await s.events.countBefore(cutoff)).to.equal(0);
    });

    it('when the operator issues a key, then api_key.created names the operator and the key’s policy, never its hash', async () => {
      const { key, owner } = await agentWithKey();
      const [created] = await all(owner);
      expect(created).to.deep.include({
        type: 'api_key.created',
        actor: { kind: 'operator', id: 'operator' },
        subject: { kind: 'api_key', id: key.id },
      });
      expect(created!.details).to.deep.include({ scopes: ['*'], allowedIps: [], createdByKeyId: null });
      expect(JSON.stringify(created)).to.not.include(key.hash);
    });

    it('when a key is rolled, then api_key.rolled and api_key.revoked (rotated) are recorded, by the key, and the new key keeps the policy', async () => {
      const { agent, owner } = await agentWithKey();
      const from = keyRecordOf(agent.id, { createdAt: new Date(), scopes: ['orders:read'], allowedIps: ['10.0.0.0/8'], name: 'ci' });
      await s.directory.insertKey(from);
      const next = keyRecordOf(agent.id, { createdAt: new Date() });
      const until = new Date(Date.now() + 60_000);
      const rolled = await s.directory.rollKey(from.id, next, until, apiKeyContext(from.id, { ip: '10.1.2.3', requestId: 'req_r' }));
      expect(rolled).to.deep.include({ scopes: ['orders:read'], allowedIps: ['10.0.0.0/8'], name: 'ci', rolledFromKeyId: from.id });
      const trail = await all(owner, { types: ['api_key.rolled', 'api_key.revoked'] });
      expect(trail.map((e) => [e.type, e.subject.id, e.actor.id, e.ip]).sort()).to.deep.equal([
        ['api_key.revoked', from.id, from.id, '10.1.2.3'],
        ['api_key.rolled', from.id, from.id, '10.1.2.3'],
      ]);
      expect(trail.find((e) => e.type === 'api_key.revoked')!.details['reason']).to.equal('rotated');
      expect(trail.find((e) => e.type === 'api_key.rolled')!.details['newKeyId']).to.equal(next.id);
    });

    it('when a key is reported leaked, then every key rolled from or created by it at any depth is leaked, with one event each and one leak report', async () => {
      const { agent, key: root, owner } = await agentWithKey();
      const made = keyRecordOf(agent.id, { createdAt: new Date(), createdByKeyId: root.id });
      await s.directory.insertKey(made);
      const grandchild = keyRecordOf(agent.id, { createdAt: new Date(), createdByKeyId: made.id });
      await s.directory.insertKey(grandchild);
      const rolledFromGrandchild = keyRecordOf(agent.id, { createdAt: new Date() });
      await s.directory.rollKey(grandchild.id, rolledFromGrandchild, new Date(Date.now() + 60_000));
      const bystander = keyRecordOf(agent.id, { createdAt: new Date() });
      await s.directory.insertKey(bystander);
      const revoked = await s.directory.revokeKey(root.id, 'leaked', new Date(), apiKeyContext(root.id));
      expect(revoked!.rolled.map((k) => k.id).sort()).to.deep.equal([made.id, grandchild.id, rolledFromGrandchild.id].sort());
      expect(revoked!.rolled.every((k) => k.revokedReason === 'leaked')).to.equal(true);
      expect((await s.directory.findKey(bystander.id))!.status).to.equal('ACTIVE');
      const leaked = (await all(owner, { types: ['api_key.revoked'] })).filter((e) => e.details['reason'] === 'leaked');
      expect(leaked.map((e) => e.subject.id).sort()).to.deep.equal([root.id, made.id, grandchild.id, rolledFromGrandchild.id].sort());
      const reports = await all(owner, { types: ['api_key.leak_reported'] });
      expect(reports).to.have.length(1);
      expect(reports[0]!.subject.id).to.equal(root.id);
      expect((reports[0]!.details['revokedKeyIds'] as string[]).slice().sort()).to.deep.equal(
        [made.id, grandchild.id, rolledFromGrandchild.id].sort(),
      );
    });

    it('when an endpoint is registered and deleted, then both are recorded by the caller, with its URL and never its secret', async () => {
      const owner = agentOwner();
      const ctx = apiKeyContext(`key_${unique()}`, { ip: '192.0.2.4', requestId: 'req_w' });
      const endpoint = {
        id: `whe_${unique()}`,
        owner,
        url: 'https://hooks.example/in',
        events: ['order.confirmed' as const],
        description: null,
        status: 'active' as const,
        createdAt: new Date(),
        sealedSecret: `v1.sealed-${unique()}`,
      };
      await s.webhooks.createEndpoint(endpoint, 10, ctx);
      expect(await s.webhooks.deleteEndpoint(owner, `whe_${unique()}`, { context: ctx, at: new Date() })).to.equal(false);
      expect(await s.webhooks.deleteEndpoint(owner, endpoint.id, { context: ctx, at: new Date() })).to.equal(true);
      const trail = await all(owner);
      expect(trail.map((e) => [e.type, e.subject.id, e.actor.id, e.ip])).to.deep.equal([
        ['webhook_endpoint.deleted', endpoint.id, ctx.actor.id, '192.0.2.4'],
        ['webhook_endpoint.created', endpoint.id, ctx.actor.id, '192.0.2.4'],
      ]);
      expect(trail[1]!.details).to.deep.equal({ url: 'https://hooks.example/in', events: ['order.confirmed'] });
      expect(JSON.stringify(trail)).to.not.include(endpoint.sealedSecret);
    });

    it('when a key revokes keys, then only those it created, directly or through keys it created, are revoked as revoked', async () => {
      const { agent, key: creator, owner } = await agentWithKey();
      const child = keyRecordOf(agent.id, { createdAt: new Date(), createdByKeyId: creator.id });
      const grandchild = keyRecordOf(agent.id, { createdAt: new Date(), createdByKeyId: child.id });
      const sibling = keyRecordOf(agent.id, { createdAt: new Date() });
      for (const k of [child, grandchild, sibling]) await s.directory.insertKey(k);
      const other = await agentWithKey();
      const ctx = apiKeyContext(creator.id);
      expect(await s.directory.revokeCreatedKey(creator.id, creator.id, new Date(), ctx)).to.equal(null);
      expect(await s.directory.revokeCreatedKey(creator.id, sibling.id, new Date(), ctx)).to.equal(null);
      expect(await s.directory.revokeCreatedKey(creator.id, other.key.id, new Date(), ctx)).to.equal(null);
      expect(await s.directory.revokeCreatedKey(creator.id, `key_${unique()}`, new Date(), ctx)).to.equal(null);
      expect(await s.directory.revokeCreatedKey(child.id, creator.id, new Date(), ctx)).to.equal(null);
      expect((await s.directory.revokeCreatedKey(creator.id, grandchild.id, new Date(), ctx))!.revokedReason).to.equal('revoked');
      expect((await s.directory.revokeCreatedKey(creator.id, child.id, new Date(), ctx))!.revokedReason).to.equal('revoked');
      for (const k of [creator, sibling, other.key]) expect((await s.directory.findKey(k.id))!.status).to.equal('ACTIVE');
      const revoked = await all(owner, { types: ['api_key.revoked'] });
      expect(revoked.map((e) => [e.subject.id, e.details['reason'], e.actor.id]).sort()).to.deep.equal(
        [
          [child.id, 'revoked', creator.id],
          [grandchild.id, 'revoked', creator.id],
        ].sort(),
      );
    });
  });
}
