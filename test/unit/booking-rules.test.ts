import { expect } from 'chai';
import { chooseFare } from '../../src/application/booking/quote-transfer.js';
import { checkCancellable, type Order } from '../../src/domain/booking/order.js';
import { isOwnedBy, requireOwned } from '../../src/domain/booking/ownership.js';
import { termsOf, totalPrice, unitPrice } from '../../src/domain/booking/pricing.js';
import { roundHalfAwayFromZero } from '../../src/domain/shared/money.js';
import { checkQuoteBookable, type Quote } from '../../src/domain/booking/quote.js';
import { isCalendarDate, parseTripId, tripOfSchedule, tripsOn } from '../../src/domain/booking/trip.js';
import type { BusSchedule, TransferFare } from '../../src/domain/catalogue/catalogue.js';
import type { ApiKeyRecord } from '../../src/domain/identity/api-key.js';
import type { AgentPrincipal } from '../../src/domain/identity/principal.js';
import { DomainError } from '../../src/domain/shared/errors.js';

const reason = (fn: () => unknown): string => {
  try {
    fn();
    return 'ok';
  } catch (err) {
    if (err instanceof DomainError) return err.reason;
    throw err;
  }
};

describe('pricing', () => {
  const thb = (amount: number) => ({ amount, currency: 'THB' });

  it('when markup and discount apply, then they chain exactly and round once at the end', () => {
    // 850.00 × 1.10 × 0.95 = 888.25 exactly
    expect(unitPrice(thb(85_000), { currency: 'THB', markupBps: 1_000, discountBps: 500 })).to.deep.equal(thb(88_825));
    // 1.50 × 1.01 × 0.997 = 1.510455 → 1.51 once; rounding after each step would give 1.52 (1.515 → 1.52, × 0.997 = 1.515… → 1.52)
    expect(unitPrice(thb(150), { currency: 'THB', markupBps: 100, discountBps: 30 })).to.deep.equal(thb(151));
  });

  it('when the exact figure ends in a half, then it rounds away from zero', () => {
    // 0.50 × 1.01 = 0.505 → 0.51 (banker's rounding would give 0.50)
    expect(unitPrice(thb(50), { currency: 'THB', markupBps: 100, discountBps: 0 })).to.deep.equal(thb(51));
    expect(roundHalfAwayFromZero(-5n, 10n)).to.equal(-1n);
    expect(roundHalfAwayFromZero(5n, 10n)).to.equal(1n);
    expect(roundHalfAwayFromZero(4n, 10n)).to.equal(0n);
    expect(roundHalfAwayFromZero(-14n, 10n)).to.equal(-1n);
  });

  it('when a channel has a negative markup, then the price is below the base fare', () => {
    expect(unitPrice(thb(10_000), { currency: 'THB', markupBps: -1_500, discountBps: 0 })).to.deep.equal(thb(8_500));
  });

  it('when the fare is in another currency than the channel, then no-fare', () => {
    expect(reason(() => unitPrice(thb(100), { currency: 'USD', markupBps: 0, discountBps: 0 }))).to.equal('no-fare');
  });

  it('when several units are bought, then the total is the unit price times the quantity', () => {
    expect(totalPrice(thb(18_810), 3)).to.deep.equal(thb(56_430));
    expect(() => totalPrice(thb(1), 0)).to.throw(RangeError);
  });

  it('when the terms are taken from a principal, then only its channel and discount count', () => {
    const terms = termsOf({ channel: { currency: 'THB', markupBps: 250 }, discountBps: 100 });
    expect(terms).to.deep.equal({ currency: 'THB', markupBps: 250, discountBps: 100 });
  });
});

describe('trips', () => {
  const schedule: BusSchedule = {
    id: 'sch_bangkok_pattaya',
    fromCityId: 'cty_bangkok',
    toCityId: 'cty_pattaya',
    operatorCode: 'GULF-COAST-COACHES',
    departureTimes: ['18:00', '06:00'],
    utcOffsetMinutes: 420,
    durationMinutes: 150,
    seatCapacity: 40,
    baseFare: { amount: 18_000, currency: 'THB' },
  };

  it('when a local date is expanded, then each departure becomes a UTC instant, earliest first, with an id that parses back', () => {
    const trips = tripsOn(schedule, '2027-03-01');
    expect(trips.map((t) => t.departsAt.toISOString())).to.deep.equal(['2027-02-28T23:00:00.000Z', '2027-03-01T11:00:00.000Z']);
    expect(trips[0]!.id).to.equal('trp_bangkok_pattaya_202702282300');
    expect(trips[0]!.arrivesAt.toISOString()).to.equal('2027-03-01T01:30:00.000Z');
    expect(parseTripId(trips[0]!.id)).to.deep.equal({ scheduleId: 'sch_bangkok_pattaya', departsAt: trips[0]!.departsAt });
    expect(tripOfSchedule(schedule, trips[1]!.departsAt)?.id).to.equal(trips[1]!.id);
  });

  it('when a trip id is malformed or names no departure, then it is refused', () => {
    for (const bad of ['trp_', 'trp_x_20270230', 'trp_x_202702301000', 'qte_x_202701010000', 'trp_x y_202701010000']) {
      expect(parseTripId(bad), bad).to.equal(null);
    }
    expect(tripOfSchedule(schedule, new Date('2027-03-01T11:01:00.000Z'))).to.equal(null);
  });

  it('when a date is checked, then only real calendar dates pass', () => {
    expect(isCalendarDate('2027-02-28')).to.equal(true);
    expect(isCalendarDate('2027-02-30')).to.equal(false);
    expect(isCalendarDate('27-02-28')).to.equal(false);
  });
});

describe('transfer vehicle choice', () => {
  const classes = [
    { code: 'van', name: 'Van', maxPassengers: 9 },
    { code: 'sedan', name: 'Sedan', maxPassengers: 3 },
    { code: 'suv', name: 'SUV', maxPassengers: 5 },
  ];
  const fare = (vehicleClass: string, amount: number): TransferFare => ({
    operatorCode: 'OP',
    fromZone: 'A',
    toZone: 'B',
    vehicleClass,
    baseFare: { amount, currency: 'THB' },
    durationMinutes: 30,
  });

  it('when no class is asked for, then the smallest that carries everybody and has a fare is chosen', () => {
    const fares = [fare('sedan', 100), fare('van', 300)];
    expect(chooseFare(fares, classes, 2, undefined).vehicle.code).to.equal('sedan');
    expect(chooseFare(fares, classes, 4, undefined).vehicle.code).to.equal('van');
    expect(reason(() => chooseFare(fares, classes, 10, undefined))).to.equal('no-fare');
    expect(reason(() => chooseFare([], classes, 1, undefined))).to.equal('no-fare');
  });

  it('when a class is asked for, then it must exist, carry everybody and have a fare', () => {
    const fares = [fare('sedan', 100)];
    expect(chooseFare(fares, classes, 3, 'sedan').fare.baseFare.amount).to.equal(100);
    expect(reason(() => chooseFare(fares, classes, 4, 'sedan'))).to.equal('invalid-request');
    expect(reason(() => chooseFare(fares, classes, 1, 'limo'))).to.equal('invalid-request');
    expect(reason(() => chooseFare(fares, classes, 1, 'van'))).to.equal('no-fare');
  });
});

describe('ownership', () => {
  it('when the record is the agent’s, then it is returned; another agent’s or none is the not-found reason', () => {
    const record = { agentId: 'agt_a', id: 'ord_1' };
    expect(isOwnedBy(record, 'agt_a')).to.equal(true);
    expect(isOwnedBy(record, 'agt_b')).to.equal(false);
    expect(requireOwned(record, 'agt_a', 'order-not-found')).to.equal(record);
    expect(reason(() => requireOwned(record, 'agt_b', 'order-not-found'))).to.equal('order-not-found');
    expect(reason(() => requireOwned(null, 'agt_a', 'quote-not-found'))).to.equal('quote-not-found');
  });
});

describe('booking and cancellation rules', () => {
  const now = new Date('2027-01-01T00:00:00.000Z');
  const principal = { agentId: 'agt_a', channel: { code: 'B2B', currency: 'THB', markupBps: 0, name: 'B2B' } } as AgentPrincipal;
  const quote = { agentId: 'agt_a', channelCode: 'B2B', expiresAt: new Date(now.getTime() + 1000) } as Quote;

  it('when the quote is for the key’s channel and not expired, then it is bookable', () => {
    expect(reason(() => checkQuoteBookable(quote, principal, now))).to.equal('ok');
  });

  it('when the channel differs, then quote-channel-mismatch; at or after expiry, then quote-expired', () => {
    expect(reason(() => checkQuoteBookable({ ...quote, channelCode: 'B2C' }, principal, now))).to.equal('quote-channel-mismatch');
    expect(reason(() => checkQuoteBookable(quote, principal, quote.expiresAt))).to.equal('quote-expired');
  });

  const order = {
    status: 'CONFIRMED',
    price: { amount: 1_000, currency: 'THB' },
    startsAt: new Date(now.getTime() + 3_600_000),
    terms: { freeCancellationHours: 24, lateCancellationFeeBps: 5_000 },
  } as Order;
  const key = (over: Partial<ApiKeyRecord>): ApiKeyRecord =>
    ({ id: 'key_1', agentId: 'agt_a', status: 'ACTIVE', revokedReason: null, revokedAt: null, ...over }) as ApiKeyRecord;

  it('when a confirmed order starts later and its key is fine or rotated or revoked by an operator, then it can be cancelled', () => {
    for (const k of [
      key({}),
      key({ status: 'REVOKED', revokedReason: 'rotated' }),
      key({ status: 'REVOKED', revokedReason: 'operator' }),
      null,
    ]) {
      expect(reason(() => checkCancellable(order, k, now))).to.equal('ok');
    }
  });

  it('when cancelled already, leaked, or past the start, then the matching reason, in that order', () => {
    const leaked = key({ status: 'REVOKED', revokedReason: 'leaked' });
    expect(reason(() => checkCancellable({ ...order, status: 'CANCELLED' }, leaked, now))).to.equal('order-already-cancelled');
    expect(reason(() => checkCancellable(order, leaked, order.startsAt))).to.equal('booked-with-leaked-key');
    expect(reason(() => checkCancellable(order, key({}), order.startsAt))).to.equal('cancellation-window-closed');
  });
});
