import { expect } from 'chai';
import { applyBasisPoints } from '../../src/domain/shared/money.js';

describe('basis-point adjustments', () => {
  it('when the adjustment is exact, then the result is exact', () => {
    expect(applyBasisPoints(100_000, 1_000)).to.equal(110_000);
    expect(applyBasisPoints(100_000, -500)).to.equal(95_000);
    expect(applyBasisPoints(100_000, 0)).to.equal(100_000);
  });

  it('when the result has a fraction, then it rounds half away from zero', () => {
    expect(applyBasisPoints(1, 5_000)).to.equal(2); // 1.5 -> 2
    expect(applyBasisPoints(1, 4_999)).to.equal(1); // 1.4999 -> 1
    expect(applyBasisPoints(3, -5_000)).to.equal(2); // 1.5 -> 2
    expect(applyBasisPoints(-1, 5_000)).to.equal(-2); // -1.5 -> -2
  });
});
