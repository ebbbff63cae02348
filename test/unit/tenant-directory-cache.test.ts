import { expect } from 'chai';
import { CachedTenantDirectory } from '../../src/adapters/cache/tenant-directory.cached.js';
import { MemoryTenantDirectory } from '../../src/adapters/memory/tenant-directory.memory.js';
import type { TenantDirectory } from '../../src/domain/identity/tenant-directory.port.js';
import type { Tenant, WalletUser } from '../../src/domain/identity/tenant.js';

/** Counts the reads that reach the directory behind the cache. */
function counting(inner: TenantDirectory): TenantDirectory & { reads: number } {
  const counter = { reads: 0 };
  return new Proxy(inner, {
    get(target, prop, receiver) {
      if (prop === 'reads') return counter.reads;
      const v = Reflect.get(target, prop, receiver) as unknown;
      if (typeof v !== 'function') return v;
      return (...args: unknown[]) => {
        if (String(prop).startsWith('find')) counter.reads += 1;
        return (v as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
  }) as TenantDirectory & { reads: number };
}

const tenant = (id: string): Tenant => ({
  id,
  name: `T ${id}`,
  clientId: `cl_${id}`,
  clientSecretHash: 'h1',
  currency: 'THB',
  createdAt: new Date(),
});
const user = (id: string, tenantId: string): WalletUser => ({
  id,
  tenantId,
  externalUserRef: `ref-${id}`,
  email: null,
  passwordHash: null,
  createdAt: new Date(),
});

describe('tenant and wallet user cache', () => {
  let inner: TenantDirectory & { reads: number };
  let cache: CachedTenantDirectory;
  beforeEach(async () => {
    const memory = new MemoryTenantDirectory();
    await memory.createTenant(tenant('a'));
    await memory.createTenant(tenant('b'));
    await memory.createUser(user('u1', 'a'));
    inner = counting(memory);
    cache = new CachedTenantDirectory(inner, { trusted: true }, { maxEntries: 100, ttlMs: 60_000 });
  });

  it('when the tenant, the user and the client id are read twice, then storage is asked once for each', async () => {
    for (let i = 0; i < 2; i++) {
      expect((await cache.findTenant('a'))?.id).to.equal('a');
      expect((await cache.findUser('a', 'u1'))?.id).to.equal('u1');
      expect((await cache.findTenantByClientId('cl_a'))?.id).to.equal('a');
    }
    expect(inner.reads).to.equal(3);
  });

  it('when a user is read under another tenant, then it is not found, even after the right tenant cached it', async () => {
    expect(await cache.findUser('a', 'u1')).to.not.equal(null);
    expect(await cache.findUser('b', 'u1')).to.equal(null);
  });

  it('when something is not found, then nothing is kept, so a user created afterwards is found at once', async () => {
    expect(await cache.findUser('a', 'u2')).to.equal(null);
    await cache.createUser(user('u2', 'a'));
    expect((await cache.findUser('a', 'u2'))?.id).to.equal('u2');
  });

  it('when the client secret is replaced through the cache, then the next read sees the new hash', async () => {
    expect((await cache.findTenantByClientId('cl_a'))?.clientSecretHash).to.equal('h1');
    expect(await cache.replaceClientSecret('a', 'h2')).to.equal(true);
    expect((await cache.findTenantByClientId('cl_a'))?.clientSecretHash).to.equal('h2');
  });

  it('when a password is set through the cache, then the next read of the user sees it', async () => {
    expect((await cache.findUser('a', 'u1'))?.passwordHash).to.equal(null);
    expect(await cache.setPasswordHash('a', 'u1', 'scrypt$x')).to.equal(true);
    expect((await cache.findUser('a', 'u1'))?.passwordHash).to.equal('scrypt$x');
  });

  it('when a change is announced, then every entry is read again', async () => {
    await cache.findTenant('a');
    await cache.findUser('a', 'u1');
    cache.clear();
    await cache.findTenant('a');
    await cache.findUser('a', 'u1');
    expect(inner.reads).to.equal(4);
  });

  it('when the change feed is down, then every read goes to storage', async () => {
    const health = { trusted: false };
    const bypassed = new CachedTenantDirectory(inner, health, { maxEntries: 100, ttlMs: 60_000 });
    await bypassed.findUser('a', 'u1');
    await bypassed.findUser('a', 'u1');
    expect(inner.reads).to.equal(2);
    expect(bypassed.size).to.equal(0);
  });
});
