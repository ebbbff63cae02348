import { expect } from 'chai';
import { decideCancellation, requireCancellable, type CancellableOrder } from '../../src/domain/booking/cancellation.js';
import { keyRecord } from '../support/builders.js';
import { reasonOf } from '../support/errors.js';

const startsAt = new Date('2026-08-10T10:00:00.000Z');
const order = (over: Partial<CancellableOrder> = {}): CancellableOrder => ({
  status: 'CONFIRMED',
  price: { amount: 12_345, currency: 'THB' },
  startsAt,
  terms: { freeCancellationHours: 24, lateCancellationFeeBps: 5_000 },
  ...over,
});
const key = keyRecord;
const deadline = new Date('2026-08-09T10:00:00.000Z');
const at = (ms: number) => new Date(deadline.getTime() + ms);

describe('cancellation terms', () => {
  it('when cancelled up to and exactly at the deadline, then it is free; one second later the fee applies', () => {
    expect(decideCancellation(order(), key(), at(-3_600_000))).to.deep.include({
      cancellable: true,
      reason: null,
      fee: { amount: 0, currency: 'THB' },
    });
    const exactly = decideCancellation(order(), key(), deadline);
    expect(exactly).to.deep.equal({
      cancellable: true,
      reason: null,
      refund: { amount: 12_345, currency: 'THB' },
      fee: { amount: 0, currency: 'THB' },
      freeUntil: deadline,
    });
    const late = decideCancellation(order(), key(), at(1000));
    // 50 % of 123.45 = 61.725 → 61.73 (one rounding, half away from zero); refund + fee = price.
    expect(late).to.deep.include({
      cancellable: true,
      fee: { amount: 6_173, currency: 'THB' },
      refund: { amount: 6_172, currency: 'THB' },
    });
  });

  it('when the start has come or passed, then it is not cancellable; one millisecond before, it is', async () => {
    expect(decideCancellation(order(), key(), new Date(startsAt.getTime() - 1)).cancellable).to.equal(true);
    expect(decideCancellation(order(), key(), startsAt)).to.deep.include({
      cancellable: false,
      reason: 'cancellation-window-closed',
      refund: null,
      fee: null,
    });
    expect(await reasonOf(Promise.resolve().then(() => requireCancellable(decideCancellation(order(), key(), startsAt))))).to.equal(
      'cancellation-window-closed',
    );
  });

  it('when the order is cancelled or was booked with a leaked key, then those reasons come first', () => {
    const leaked = key({ status: 'REVOKED', revokedReason: 'leaked', revokedAt: deadline });
    expect(decideCancellation(order({ status: 'CANCELLED' }), leaked, startsAt).reason).to.equal('order-already-cancelled');
    expect(decideCancellation(order(), leaked, at(-1)).reason).to.equal('booked-with-leaked-key');
    for (const reason of ['rotated', 'operator'] as const) {
      expect(
        decideCancellation(order(), key({ status: 'REVOKED', revokedReason: reason, revokedAt: deadline }), at(-1)).cancellable,
      ).to.equal(true);
    }
  });

  it('when the fee is computed, then it is exact in integers with one rounding, and refund + fee is always the price', () => {
    const cases: Array<[number, number, number]> = [
      [1, 5_000, 1], // 0.5 → 1
      [3, 3_333, 1], // 0.9999 → 1
      [10_001, 1, 1], // 1.0001 → 1
      [99_999, 10_000, 99_999],
      [99_999, 0, 0],
      [250, 2_500, 63], // 62.5 → 63
    ];
    for (const [amount, bps, fee] of cases) {
      const d = decideCancellation(
        order({ price: { amount, currency: 'JPY' }, terms: { freeCancellationHours: 1, lateCancellationFeeBps: bps } }),
        null,
        new Date(startsAt.getTime() - 1),
      );
      expect(d.fee?.amount, `${amount} × ${bps}`).to.equal(fee);
      expect((d.fee?.amount ?? 0) + (d.refund?.amount ?? 0)).to.equal(amount);
    }
  });
});
