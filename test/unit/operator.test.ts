import { expect } from 'chai';
import { operatorCodeOf, operatorOf, pickupHourOf } from '../../src/domain/catalogue/operator.js';
import { DomainError } from '../../src/domain/shared/errors.js';

const pathOf = (fn: () => unknown): string | undefined => {
  try {
    fn();
    return undefined;
  } catch (err) {
    expect(err).to.be.instanceOf(DomainError);
    return ((err as DomainError).details?.errors as Array<{ path: string }> | undefined)?.[0]?.path;
  }
};

describe('operators', () => {
  const base = { code: 'SIAM-1', name: 'Siam', timezone: 'Asia/Bangkok' };

  it('when an operator is made without a mode or window, then it is instant with a 120-minute window', () => {
    expect(operatorOf(base)).to.deep.equal({ ...base, confirmation: 'instant', confirmationWindowMinutes: 120, livemode: true });
  });

  it('when a field is out of its rules, then invalid-request names it', () => {
    expect(pathOf(() => operatorOf({ ...base, code: 'siam' }))).to.equal('code');
    expect(pathOf(() => operatorOf({ ...base, name: ' ' }))).to.equal('name');
    expect(pathOf(() => operatorOf({ ...base, timezone: 'Asia/Atlantis' }))).to.equal('timezone');
    expect(pathOf(() => operatorOf({ ...base, timezone: '' }))).to.equal('timezone');
    expect(pathOf(() => operatorOf({ ...base, confirmation: 'later' }))).to.equal('confirmation');
    for (const window of [0, 10_081, 1.5]) {
      expect(
        pathOf(() => operatorOf({ ...base, confirmationWindowMinutes: window })),
        String(window),
      ).to.equal('confirmationWindowMinutes');
    }
    expect(operatorOf({ ...base, confirmation: 'on-request', confirmationWindowMinutes: 10_080 }).confirmationWindowMinutes).to.equal(
      10_080,
    );
  });

  it('when a pickup hour is taken, then it is the start of the local hour in the operator’s zone', () => {
    expect(pickupHourOf(new Date('2027-01-15T03:59:59.999Z'), 'Asia/Bangkok').toISOString()).to.equal('2027-01-15T03:00:00.000Z');
    // Kolkata is UTC+5:30: 10:10 and 10:50 local share the hour that starts 04:30 UTC.
    expect(pickupHourOf(new Date('2027-01-15T04:40:00.000Z'), 'Asia/Kolkata').toISOString()).to.equal('2027-01-15T04:30:00.000Z');
    expect(pickupHourOf(new Date('2027-01-15T05:20:00.000Z'), 'Asia/Kolkata').toISOString()).to.equal('2027-01-15T04:30:00.000Z');
    expect(pickupHourOf(new Date('2027-01-15T05:30:00.000Z'), 'Asia/Kolkata').toISOString()).to.equal('2027-01-15T05:30:00.000Z');
  });

  it('when a code is made from a name, then it is the name’s upper-case slug', () => {
    expect(operatorCodeOf('Gulf Coast Coaches')).to.equal('GULF-COAST-COACHES');
    expect(operatorCodeOf('  Hôtel & Co. ')).to.equal('H-TEL-CO');
  });
});
