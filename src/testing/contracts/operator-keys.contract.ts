import { expect } from 'chai';
import { createHash, randomBytes } from 'node:crypto';
import type { OperatorDirectory } from '../../domain/catalogue/operator-directory.port.js';
import type { OperatorKeyRecord } from '../../domain/catalogue/operator-key.js';
import type { OperatorKeyStore } from '../../domain/catalogue/operator-keys.port.js';
import { buildOperator, reasonOf, unique } from '../fixtures.js';

/** The operator key store under test, with the operator directory of the same store. */
export interface OperatorKeyStores {
  readonly operators: OperatorDirectory;
  readonly keys: OperatorKeyStore;
}

const keyOf = (operatorCode: string): OperatorKeyRecord => ({
  id: `opk_test_${unique().toLowerCase()}`,
  operatorCode,
  hash: createHash('sha256').update(randomBytes(32)).digest('hex'),
  prefix: 'pbo_Ab12',
  createdAt: new Date(Math.floor(Date.now() / 1000) * 1000),
  revokedAt: null,
});

/** How every operator key store keeps the keys of the operator surface (CONTRACT §6.3). */
export function operatorKeyStoreContract(name: string, make: () => Promise<OperatorKeyStores>): void {
  describe(`operator key store contract: ${name}`, () => {
    let s: OperatorKeyStores;
    before(async () => {
      s = await make();
    });

    it('when a key is issued, then its hash resolves to it and its operator; an unknown hash to null', async () => {
      const operator = buildOperator({ confirmation: 'on-request', confirmationWindowMinutes: 60 });
      await s.operators.create(operator);
      const key = keyOf(operator.code);
      expect(await s.keys.issue(key)).to.deep.equal(key);
      expect(await s.keys.findByKeyHash(key.hash)).to.deep.equal({ key, operator });
      expect(await s.keys.findByKeyHash(keyOf(operator.code).hash)).to.equal(null);
    });

    it('when a key names an operator that does not exist, then operator-not-found and nothing is stored', async () => {
      const key = keyOf('NO-SUCH-OPERATOR-XYZ');
      expect(await reasonOf(s.keys.issue(key))).to.equal('operator-not-found');
      expect(await s.keys.findByKeyHash(key.hash)).to.equal(null);
    });

    it('when a key is revoked, then it still resolves with its revocation time, and a second revoke keeps the first', async () => {
      const operator = buildOperator();
      await s.operators.create(operator);
      const key = keyOf(operator.code);
      await s.keys.issue(key);
      const at = new Date(Math.floor(Date.now() / 1000) * 1000);
      expect(await s.keys.revoke(key.id, at)).to.deep.equal({ ...key, revokedAt: at });
      expect((await s.keys.findByKeyHash(key.hash))?.key.revokedAt).to.deep.equal(at);
      expect((await s.keys.revoke(key.id, new Date(at.getTime() + 60_000))).revokedAt).to.deep.equal(at);
    });

    it('when concurrent revokes meet, then every one answers the same revocation time', async () => {
      const operator = buildOperator();
      await s.operators.create(operator);
      const key = keyOf(operator.code);
      await s.keys.issue(key);
      const base = Math.floor(Date.now() / 1000) * 1000;
      const answers = await Promise.all(Array.from({ length: 5 }, (_, i) => s.keys.revoke(key.id, new Date(base + i * 1000))));
      const times = new Set(answers.map((a) => a.revokedAt?.getTime()));
      expect(times.size).to.equal(1);
      expect((await s.keys.findByKeyHash(key.hash))?.key.revokedAt?.getTime()).to.equal([...times][0]);
    });

    it('when the key does not exist, then key-not-found', async () => {
      expect(await reasonOf(s.keys.revoke('opk_none', new Date()))).to.equal('key-not-found');
    });

    it("when one operator's key is revoked, then another operator's key still resolves unrevoked", async () => {
      const a = buildOperator();
      const b = buildOperator();
      await s.operators.create(a);
      await s.operators.create(b);
      const ka = keyOf(a.code);
      const kb = keyOf(b.code);
      await s.keys.issue(ka);
      await s.keys.issue(kb);
      await s.keys.revoke(ka.id, new Date());
      expect(await s.keys.findByKeyHash(kb.hash)).to.deep.equal({ key: kb, operator: b });
    });
  });
}
