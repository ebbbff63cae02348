import { expect } from 'chai';
import { TimeSortableIds } from '../../src/adapters/crypto/node-crypto.js';

describe('ids', () => {
  it('when many ids are made, then each is <prefix>_ and 26 Crockford characters, and none repeats', () => {
    const ids = new TimeSortableIds();
    const made = Array.from({ length: 5_000 }, () => ids.next('txn'));
    for (const id of made) expect(id).to.match(/^txn_[0-9A-HJKMNP-TV-Z]{26}$/);
    expect(new Set(made).size).to.equal(made.length);
    // The random part is spread over the whole alphabet, not drawn from a few values.
    expect(new Set(made.map((id) => id.slice(-1))).size).to.equal(32);
  });

  it('when ids are made in later milliseconds, then they sort after the earlier ones', async () => {
    const ids = new TimeSortableIds();
    const first = ids.next('ord');
    await new Promise((resolve) => setTimeout(resolve, 5));
    const second = ids.next('ord');
    expect([second, first].sort()).to.deep.equal([first, second]);
  });

  it('when ids are made one after another, even within one millisecond, then they sort in the order made', () => {
    const ids = new TimeSortableIds();
    const made = Array.from({ length: 2_000 }, () => ids.next('key'));
    expect([...made].sort()).to.deep.equal(made);
  });
});
