import { expect } from 'chai';
import { clientSecretMatches, userTokenCounts, type Tenant, type WalletUser } from '../../src/domain/identity/tenant.js';
import { FeedTokenRevocationList } from '../../src/adapters/cache/token-revocation-list.cached.js';
import { MemoryRevokedTokenStore } from '../../src/adapters/memory/token-revocation.memory.js';
import { TestClock } from '../support/booking-builders.js';

const tenant = (over: Partial<Tenant> = {}): Tenant => ({
  id: 'tnt_1',
  name: 'T',
  clientId: 'cli_1',
  clientSecretHash: 'a'.repeat(64),
  currency: 'THB',
  createdAt: new Date(0),
  ...over,
});
const user = (over: Partial<WalletUser> = {}): WalletUser => ({
  id: 'usr_1',
  tenantId: 'tnt_1',
  externalUserRef: 'r',
  email: null,
  passwordHash: null,
  createdAt: new Date(0),
  ...over,
});

describe('client secrets during a rotation', () => {
  const now = new Date('2026-06-01T12:00:00.000Z');
  it('when the previous secret is presented before its overlap ends, then it matches; at or after the end, it does not', () => {
    const t = tenant({
      clientSecretHash: 'b'.repeat(64),
      previousClientSecretHash: 'a'.repeat(64),
      previousSecretValidUntil: new Date(now.getTime() + 1000),
    });
    expect(clientSecretMatches(t, 'b'.repeat(64), now)).to.equal(true);
    expect(clientSecretMatches(t, 'a'.repeat(64), now)).to.equal(true);
    expect(clientSecretMatches(t, 'a'.repeat(64), new Date(now.getTime() + 1000))).to.equal(false);
    expect(clientSecretMatches(t, 'c'.repeat(64), now)).to.equal(false);
  });

  it('when there is no previous secret, or no end time, then only the current one matches', () => {
    expect(clientSecretMatches(tenant(), 'a'.repeat(64), now)).to.equal(true);
    expect(
      clientSecretMatches(tenant({ previousClientSecretHash: 'b'.repeat(64), previousSecretValidUntil: null }), 'b'.repeat(64), now),
    ).to.equal(false);
  });
});

describe('tokens of a disabled or re-enabled user', () => {
  const cut = new Date('2026-06-01T12:00:00.400Z');
  const seconds = Math.floor(cut.getTime() / 1000);
  it('when the user is disabled, then no token counts, whenever it was issued', () => {
    expect(userTokenCounts(user({ disabledAt: cut, tokensValidFrom: cut }), seconds + 100)).to.equal(false);
  });

  it('when the user was enabled again, then tokens issued up to the cut-off’s second stay dead and later ones count', () => {
    const enabled = user({ disabledAt: null, tokensValidFrom: cut });
    expect(userTokenCounts(enabled, seconds - 60)).to.equal(false);
    expect(userTokenCounts(enabled, seconds)).to.equal(false);
    expect(userTokenCounts(enabled, seconds + 1)).to.equal(true);
    expect(userTokenCounts(user(), 0)).to.equal(true);
  });
});

describe('the in-memory revocation list', () => {
  it('when the feed is trusted and the set loaded, then a never-revoked jti is answered synchronously, a revoked one true', async () => {
    const store = new MemoryRevokedTokenStore();
    const clock = new TestClock(new Date('2026-06-01T12:00:00Z'));
    await store.insert({ jti: 'old', tenantId: 't', expiresAt: new Date('2026-06-01T12:10:00Z') });
    const list = new FeedTokenRevocationList(store, { trusted: true }, clock);
    // Not loaded yet: it asks the store.
    expect(list.isRevoked('old')).to.be.instanceOf(Promise);
    await list.start();
    expect(list.isRevoked('old')).to.equal(true);
    expect(list.isRevoked('never')).to.equal(false);
    await list.revoke({ jti: 'new', tenantId: 't', expiresAt: new Date('2026-06-01T12:05:00Z') });
    expect(list.isRevoked('new')).to.equal(true);
  });

  it('when another instance’s revocation is announced, then it is refused without a read; an unreadable announcement reloads', async () => {
    const store = new MemoryRevokedTokenStore();
    const list = new FeedTokenRevocationList(store, { trusted: true }, new TestClock(new Date('2026-06-01T12:00:00Z')));
    await list.start();
    list.heard(`${Math.floor(Date.parse('2026-06-01T12:10:00Z') / 1000)}:j:with:colons`);
    expect(list.isRevoked('j:with:colons')).to.equal(true);
    await store.insert({ jti: 'missed', tenantId: 't', expiresAt: new Date('2026-06-01T12:10:00Z') });
    list.heard(null);
    expect(await list.isRevoked('missed')).to.equal(true);
    await new Promise((r) => setImmediate(r));
    expect(list.isRevoked('missed')).to.equal(true);
  });

  it('when the feed is down, then every question goes to the store, so a revocation made meanwhile is not missed', async () => {
    const store = new MemoryRevokedTokenStore();
    const health = { trusted: true };
    const list = new FeedTokenRevocationList(store, health, new TestClock(new Date('2026-06-01T12:00:00Z')));
    await list.start();
    health.trusted = false;
    await store.insert({ jti: 'elsewhere', tenantId: 't', expiresAt: new Date('2026-06-01T12:10:00Z') });
    expect(await list.isRevoked('elsewhere')).to.equal(true);
    expect(await list.isRevoked('never')).to.equal(false);
  });

  it('when revoked tokens have expired, then they are forgotten by the set and the store', async () => {
    const store = new MemoryRevokedTokenStore();
    const clock = new TestClock(new Date('2026-06-01T12:00:00Z'));
    const list = new FeedTokenRevocationList(store, { trusted: true }, clock);
    await list.start();
    await list.revoke({ jti: 'short', tenantId: 't', expiresAt: new Date('2026-06-01T12:01:00Z') });
    clock.advance(3_600_000);
    await list.revoke({ jti: 'later', tenantId: 't', expiresAt: new Date('2026-06-01T13:30:00Z') });
    await new Promise((r) => setImmediate(r));
    expect(list.size).to.equal(1);
    expect(await store.has('short')).to.equal(false);
  });
});
