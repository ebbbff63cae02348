import { expect } from 'chai';
import { NodeRandomSource, Sha256Hasher, SystemClock, TimeSortableIds } from '../../src/adapters/crypto/node-crypto.js';
import { MemoryIdentityStore } from '../../src/adapters/memory/identity.memory.js';
import { MemorySecurityEvents } from '../../src/adapters/memory/security-events.memory.js';
import { RevokeApiKey } from '../../src/application/admin/revoke-api-key.js';
import { IssueApiKey } from '../../src/application/admin/issue-api-key.js';
import { ipaddrRanges } from '../../src/adapters/ip/ip-ranges.ipaddr.js';
import { CreateOwnKey } from '../../src/application/identity/create-own-key.js';
import { ReportOwnKeyLeaked } from '../../src/application/identity/report-own-key-leaked.js';
import { RevokeCreatedKey } from '../../src/application/identity/revoke-created-key.js';
import { RollOwnKey } from '../../src/application/identity/roll-own-key.js';
import { ListSecurityEvents } from '../../src/application/security-events/list-security-events.js';
import { RecordKeyRefusal } from '../../src/application/security-events/record-key-refusal.js';
import { principalFromKey } from '../../src/domain/identity/authenticate-agent.js';
import { MAX_LIVE_KEYS_PER_AGENT } from '../../src/domain/identity/api-key.js';
import type { AgentPrincipal } from '../../src/domain/identity/principal.js';
import { DomainError } from '../../src/domain/shared/errors.js';

const reasonOf = async (p: Promise<unknown>): Promise<string | null> =>
  p.then(
    () => null,
    (err: unknown) => (err instanceof DomainError ? err.reason : `not a DomainError: ${String(err)}`),
  );

describe('keys that keys make: use cases', () => {
  let store: MemoryIdentityStore;
  let trail: MemorySecurityEvents;
  let issue: IssueApiKey;
  let create: CreateOwnKey;
  let revokeCreated: RevokeCreatedKey;
  let agentId: string;
  const hasher = new Sha256Hasher();
  const clock = new SystemClock();
  const ids = new TimeSortableIds();
  const random = new NodeRandomSource();

  const principalOf = async (apiKey: string): Promise<AgentPrincipal> =>
    principalFromKey(await store.findByKeyHash(hasher.hash(apiKey)), clock.now());

  beforeEach(async () => {
    trail = new MemorySecurityEvents();
    store = new MemoryIdentityStore(undefined, undefined, trail);
    await store.createChannel({
      code: 'C',
      name: 'C',
      currency: 'THB',
      markupBps: 0,
      freeCancellationHours: 24,
      lateCancellationFeeBps: 0,
      maxHoldMinutes: 30,
    });
    agentId = (
      await store.createAgent({ id: ids.next('agt'), name: 'A', channelCode: 'C', entitlements: [], discountBps: 0, createdAt: new Date() })
    ).id;
    issue = new IssueApiKey(store, ids, random, hasher, clock, ipaddrRanges);
    create = new CreateOwnKey(store, ids, random, hasher, clock, ipaddrRanges);
    revokeCreated = new RevokeCreatedKey(store, clock);
  });

  it('when the operator issues a key without scopes, then it is a full key; with them, it has those', async () => {
    const full = await issue.execute({ agentId });
    expect(full.record).to.deep.include({ scopes: ['*'], allowedIps: [], name: null, createdByKeyId: null });
    const narrow = await issue.execute({
      agentId,
      name: 'ci',
      scopes: ['orders:read'],
      allowedIps: ['192.0.2.0/24'],
      expiresAt: new Date(Date.now() + 86_400_000),
    });
    expect(narrow.record).to.deep.include({ scopes: ['orders:read'], allowedIps: ['192.0.2.0/24'], name: 'ci' });
  });

  it('when a key creates a key, then the new key records its creator and answers once with its plaintext; scopes it lacks are scope-not-held', async () => {
    const caller = await principalOf((await issue.execute({ agentId, scopes: ['keys:manage', 'orders:read'] })).apiKey);
    const made = await create.execute(
      caller,
      { name: 'reader', scopes: ['orders:read'], allowedIps: ['2001:db8::/32'] },
      { ip: '192.0.2.1', requestId: 'req_1' },
    );
    expect(made.key).to.deep.include({
      name: 'reader',
      scopes: ['orders:read'],
      allowedIps: ['2001:db8::/32'],
      createdByKeyId: caller.keyId,
    });
    expect((await principalOf(made.apiKey)).key.scopes).to.deep.equal(['orders:read']);
    expect(await reasonOf(create.execute(caller, { name: 'writer', scopes: ['orders:write'] }))).to.equal('scope-not-held');
    expect(await reasonOf(create.execute(caller, { name: 'all', scopes: ['*'] }))).to.equal('scope-not-held');
    const created = (await new ListSecurityEvents(trail).execute({ kind: 'agent', id: agentId }, { types: ['api_key.created'] })).data;
    expect(created.find((e) => e.subject.id === made.key.id)).to.deep.include({
      actor: { kind: 'api-key', id: caller.keyId },
      ip: '192.0.2.1',
      requestId: 'req_1',
    });
  });

  it('when the agent holds 50 live keys, then the 51st create is too-many-keys', async () => {
    const caller = await principalOf((await issue.execute({ agentId })).apiKey);
    for (let i = 1; i < MAX_LIVE_KEYS_PER_AGENT; i++) await create.execute(caller, { name: `k${i}`, scopes: ['trips:read'] });
    expect(await reasonOf(create.execute(caller, { name: 'one too many', scopes: ['trips:read'] }))).to.equal('too-many-keys');
  });

  it('when a key revokes, then keys it made (at any depth) go as revoked; itself, siblings and unknown ids are key-not-found', async () => {
    const caller = await principalOf((await issue.execute({ agentId })).apiKey);
    const sibling = await issue.execute({ agentId });
    const child = await create.execute(caller, { name: 'child', scopes: ['keys:manage'] });
    const grandchild = await create.execute(await principalOf(child.apiKey), { name: 'grandchild', scopes: ['keys:manage'] });
    expect(await reasonOf(revokeCreated.execute(caller, caller.keyId))).to.equal('key-not-found');
    expect(await reasonOf(revokeCreated.execute(caller, sibling.keyId))).to.equal('key-not-found');
    expect(await reasonOf(revokeCreated.execute(await principalOf(child.apiKey), caller.keyId))).to.equal('key-not-found');
    expect(await reasonOf(revokeCreated.execute(caller, grandchild.key.id))).to.equal(null);
    expect((await store.findKey(grandchild.key.id))!.revokedReason).to.equal('revoked');
    expect(await reasonOf(principalOf(grandchild.apiKey))).to.equal('invalid-api-key');
  });

  it('when a roll is made, then the new key keeps the scopes, allowlist and expiry of the old one', async () => {
    const expiresAt = new Date(Date.now() + 86_400_000);
    const caller = await principalOf(
      (await issue.execute({ agentId, scopes: ['trips:read'], allowedIps: ['192.0.2.0/24'], expiresAt })).apiKey,
    );
    const rolled = await new RollOwnKey(store, ids, random, hasher, clock).execute(caller, { overlapSeconds: 0 });
    const next = await principalOf(rolled.apiKey);
    expect(next.key).to.deep.include({ scopes: ['trips:read'], allowedIps: ['192.0.2.0/24'] });
    expect(next.key.expiresAt?.toISOString()).to.equal(expiresAt.toISOString());
  });

  it('when a key reports its leak, then the keys it created and their rolls go with it, and it is recorded as done by that key', async () => {
    const caller = await principalOf((await issue.execute({ agentId })).apiKey);
    const child = await create.execute(caller, { name: 'child', scopes: ['*'] });
    const rolledChild = await new RollOwnKey(store, ids, random, hasher, clock).execute(await principalOf(child.apiKey), {
      overlapSeconds: 60,
    });
    const report = await new ReportOwnKeyLeaked(new RevokeApiKey(store, clock), clock).execute(caller, {
      ip: '192.0.2.1',
      requestId: 'req_2',
    });
    expect(report.rolledKeys.map((k) => k.id).sort()).to.deep.equal([child.key.id, rolledChild.key.id].sort());
    expect(await reasonOf(principalOf(rolledChild.apiKey))).to.equal('invalid-api-key');
    const [leak] = (await new ListSecurityEvents(trail).execute({ kind: 'agent', id: agentId }, { types: ['api_key.leak_reported'] })).data;
    expect(leak).to.deep.include({ actor: { kind: 'api-key', id: caller.keyId }, ip: '192.0.2.1' });
  });

  it('when refusals are recorded, then one per key, reason and minute is kept; a listing refuses unknown types', async () => {
    const caller = await principalOf((await issue.execute({ agentId, scopes: ['trips:read'] })).apiKey);
    const record = new RecordKeyRefusal(trail, clock);
    const refusal = { allowed: false, reason: 'insufficient-scope', requiredScope: 'orders:write' } as const;
    expect(await record.execute(caller, refusal, { ip: '192.0.2.1', requestId: 'req_3' })).to.equal(true);
    expect(await record.execute(caller, refusal, { ip: '192.0.2.1', requestId: 'req_4' })).to.equal(false);
    const list = new ListSecurityEvents(trail);
    expect((await list.forCaller(caller, { types: ['api_key.refused'] })).data).to.have.length(1);
    expect(await reasonOf(list.forCaller(caller, { types: ['api_key.nonsense'] }))).to.equal('invalid-request');
    expect(await reasonOf(list.forCaller(caller, { limit: 101 }))).to.equal('invalid-request');
  });
});
