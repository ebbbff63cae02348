import { expect } from 'chai';
import { inTimeZone, isVoucherClaims, voucherClaimsOf, voucherOrderAt, voucherValidity } from '../../src/domain/booking/voucher.js';
import type { Order } from '../../src/domain/booking/order.js';
import { orderRecord, reasonOf } from '../support/booking-builders.js';

const confirmed = (over: Partial<Order> = {}): Order => ({
  ...orderRecord('agt_1'),
  operatorCode: 'SIAM-AIRPORT-TRANSFERS',
  details: { fromLocationId: 'a', toLocationId: 'b', pickupAt: '', passengers: 3, vehicleClass: 'van', durationMinutes: 45 },
  ...over,
});

describe('voucher rules', () => {
  it('when an order is not CONFIRMED as true at the moment, then it has no voucher (a pending order past its deadline included)', async () => {
    const now = new Date();
    expect(voucherOrderAt(confirmed(), now).status).to.equal('CONFIRMED');
    const lapsed = confirmed({ status: 'PENDING', confirmationDeadline: new Date(now.getTime() - 1) });
    expect(await reasonOf(Promise.resolve().then(() => voucherOrderAt(lapsed, now)))).to.equal('voucher-not-available');
    for (const status of ['ON_HOLD', 'CANCELLED', 'RELEASED'] as const) {
      expect(await reasonOf(Promise.resolve().then(() => voucherOrderAt(confirmed({ status }), now)))).to.equal('voucher-not-available');
    }
    const unmapped = confirmed({ operatorCode: null });
    expect(await reasonOf(Promise.resolve().then(() => voucherOrderAt(unmapped, now)))).to.equal('voucher-not-available');
  });

  it('when the claims are made, then pax is the named passengers, or the booked count when none were named; times in seconds', () => {
    const at = new Date('2026-12-01T10:00:00.900Z');
    const order = voucherOrderAt(confirmed({ startsAt: new Date('2026-12-29T03:00:00Z') }), at);
    expect(voucherClaimsOf(order, at)).to.deep.equal({
      oid: order.id,
      op: 'SIAM-AIRPORT-TRANSFERS',
      sta: 1_798_513_200,
      pax: 3,
      iat: 1_796_119_200,
    });
    const named = voucherOrderAt(confirmed({ passengers: [{ name: 'A' }, { name: 'B' }] }), at);
    expect(voucherClaimsOf(named, at).pax).to.equal(2);
  });

  it('when the validity is given, then from the confirmation until twelve hours after the start', () => {
    const order = confirmed({ confirmedAt: new Date('2026-12-01T00:00:00Z'), startsAt: new Date('2026-12-29T03:00:00Z') });
    expect(voucherValidity(order)).to.deep.equal({
      validFrom: new Date('2026-12-01T00:00:00Z'),
      validUntil: new Date('2026-12-29T15:00:00Z'),
    });
  });

  it('when a start is written in the operator’s zone, then the local time and the offset of that day are named', () => {
    expect(inTimeZone(new Date('2026-12-29T03:00:00Z'), 'Asia/Bangkok')).to.deep.equal({
      local: 'Tue 29 Dec 2026, 10:00',
      zone: 'Asia/Bangkok (UTC+07:00)',
    });
    // Daylight saving: the same zone has another offset in summer.
    expect(inTimeZone(new Date('2026-07-01T12:00:00Z'), 'Europe/London').zone).to.equal('Europe/London (UTC+01:00)');
    expect(inTimeZone(new Date('2026-01-01T12:00:00Z'), 'Europe/London')).to.deep.equal({
      local: 'Thu 1 Jan 2026, 12:00',
      zone: 'Europe/London (UTC+00:00)',
    });
  });

  it('when a verified payload is read, then only the five claims with their types make voucher claims', () => {
    const ok = { oid: 'ord_1', op: 'OP', sta: 1, pax: 2, iat: 3 };
    expect(isVoucherClaims(ok)).to.equal(true);
    for (const bad of [
      null,
      'x',
      { ...ok, oid: '' },
      { ...ok, pax: -1 },
      { ...ok, sta: '1' },
      { ...ok, iat: 1.5 },
      { oid: 'o', op: 'p' },
    ]) {
      expect(isVoucherClaims(bad), JSON.stringify(bad)).to.equal(false);
    }
  });
});
