import { expect } from 'chai';
import { CachedOperatorKeyStore } from '../../src/adapters/cache/operator-key-resolver.cached.js';
import { MemoryCatalogue } from '../../src/adapters/memory/catalogue.memory.js';
import { MemoryOperatorDirectory } from '../../src/adapters/memory/operator-directory.memory.js';
import { MemoryOperatorKeyStore } from '../../src/adapters/memory/operator-keys.memory.js';
import { Sha256Hasher, NodeRandomSource } from '../../src/adapters/crypto/node-crypto.js';
import { AuthenticateOperator } from '../../src/application/operator/authenticate-operator.js';
import { mintOperatorKey } from '../../src/domain/catalogue/operator-key.js';
import { buildOperator, reasonOf } from '../../src/testing/fixtures.js';

/** A memory store that counts lookups by hash. */
class CountingStore extends MemoryOperatorKeyStore {
  lookups = 0;
  override findByKeyHash(hash: string) {
    this.lookups += 1;
    return super.findByKeyHash(hash);
  }
}

describe('operator key resolution cache', () => {
  const hasher = new Sha256Hasher();
  const setup = async (trusted = true) => {
    const operators = new MemoryOperatorDirectory(new MemoryCatalogue());
    const operator = buildOperator();
    await operators.create(operator);
    const inner = new CountingStore(operators);
    const cache = new CachedOperatorKeyStore(inner, { trusted }, { maxEntries: 2, ttlMs: 60_000 });
    const minted = mintOperatorKey(new NodeRandomSource(), hasher, { id: 'opk_1', operatorCode: operator.code, createdAt: new Date() });
    await cache.issue(minted.record);
    return { inner, cache, operator, minted, auth: new AuthenticateOperator(cache, hasher) };
  };

  it('when an operator key is presented twice, then it resolves to its operator and storage is asked once', async () => {
    const { inner, operator, minted, auth } = await setup();
    expect(await auth.execute(minted.apiKey)).to.deep.equal(operator);
    expect(await auth.execute(minted.apiKey)).to.deep.equal(operator);
    expect(inner.lookups).to.equal(1);
  });

  it('when the key is revoked, then the next presentation is invalid-api-key at once', async () => {
    const { cache, minted, auth } = await setup();
    await auth.execute(minted.apiKey);
    await cache.revoke('opk_1', new Date());
    expect(await reasonOf(auth.execute(minted.apiKey))).to.equal('invalid-api-key');
  });

  it('when a change is announced (clear), then the next lookup goes to storage; while the feed is down, every one does', async () => {
    const { inner, cache, minted, auth } = await setup();
    await auth.execute(minted.apiKey);
    cache.clear();
    await auth.execute(minted.apiKey);
    expect(inner.lookups).to.equal(2);
    const down = await setup(false);
    await down.auth.execute(down.minted.apiKey);
    await down.auth.execute(down.minted.apiKey);
    expect(down.inner.lookups).to.equal(2);
    expect(down.cache.size).to.equal(0);
  });

  it('when no key, an agent key or a mistyped key is presented, then missing-api-key or invalid-api-key before any lookup', async () => {
    const { inner, minted, auth } = await setup();
    expect(await reasonOf(auth.execute(undefined))).to.equal('missing-api-key');
    expect(await reasonOf(auth.execute('  '))).to.equal('missing-api-key');
    expect(await reasonOf(auth.execute(`pbk_${minted.apiKey.slice(4)}`))).to.equal('invalid-api-key');
    const last = minted.apiKey.endsWith('x') ? 'y' : 'x';
    expect(await reasonOf(auth.execute(`${minted.apiKey.slice(0, -1)}${last}`))).to.equal('invalid-api-key');
    expect(inner.lookups).to.equal(0);
  });
});
