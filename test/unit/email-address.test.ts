import { expect } from 'chai';
import { checkEmailAddress, isEmailAddress } from '../../src/domain/identity/email-address.js';
import { DomainError } from '../../src/domain/shared/errors.js';

const label = (n: number): string => 'a'.repeat(n);

describe('login email addresses (the domain rule)', () => {
  it('when an address is ordinary, internationalised or at its limits, then it is accepted', () => {
    for (const email of [
      'somchai@demo-wallet.example',
      'Person.A1B2@Example.com',
      "o'brien+tag@mail.example.co.th",
      'x@a-b.io',
      'user@xn--mgbh0fb.xn--kgbechtv',
      'ผู้ใช้@ตัวอย่าง.ไทย',
      `${'l'.repeat(64)}@example.com`,
      `a@${label(63)}.example`,
      // 254 in all: a, @ and a 252-octet domain.
      `a@${[label(63), label(63), label(63), label(60)].join('.')}`,
    ]) {
      expect(isEmailAddress(email), email).to.equal(true);
    }
  });

  it('when a domain has an empty label (a leading, trailing or doubled dot, or 250 dots), then it is refused', () => {
    for (const email of ['a@.example.com', 'a@example.com.', 'a@example..com', `a@${'.'.repeat(250)}x`, 'a@.', 'a@..x']) {
      expect(isEmailAddress(email), email).to.equal(false);
    }
  });

  it('when a label starts or ends with a hyphen, or is over 63 octets, then it is refused', () => {
    for (const email of ['a@-example.com', 'a@example-.com', 'a@mail.-x.com', 'a@example.-com', `a@${label(64)}.com`]) {
      expect(isEmailAddress(email), email).to.equal(false);
    }
  });

  it('when the top-level label is numeric, one letter, or there is only one label, then it is refused', () => {
    for (const email of ['a@example.123', 'a@1.2.3.4', 'a@example.c', 'a@localhost', 'a@[127.0.0.1]', 'a@example.c0m']) {
      expect(isEmailAddress(email), email).to.equal(false);
    }
  });

  it('when the local part is empty, over 64 octets, dotted at an end or twice, quoted or holds blanks, then it is refused', () => {
    for (const email of [
      '@example.com',
      `${'l'.repeat(65)}@example.com`,
      `${'é'.repeat(33)}@example.com`, // 33 characters, 66 octets
      '.a@example.com',
      'a.@example.com',
      'a..b@example.com',
      '"a b"@example.com',
      'a b@example.com',
      'a@b@example.com',
      'a\u0000@example.com',
      'a@exam ple.com',
      'a@ｅｘａｍｐｌｅ.com',
    ]) {
      expect(isEmailAddress(email), JSON.stringify(email)).to.equal(false);
    }
  });

  it('when the whole address is over 254 octets, then it is refused', () => {
    const email = `${'l'.repeat(64)}@${[label(63), label(63), label(62)].join('.')}`;
    expect(email.length).to.equal(255);
    expect(isEmailAddress(email)).to.equal(false);
  });

  it('when checked for a new user, then it is trimmed, and a refusal is invalid-request on email', () => {
    expect(checkEmailAddress('  somchai@demo-wallet.example ')).to.equal('somchai@demo-wallet.example');
    try {
      checkEmailAddress(`a@${'.'.repeat(250)}x`);
      expect.fail('accepted');
    } catch (err) {
      expect(err).to.be.instanceOf(DomainError);
      expect((err as DomainError).reason).to.equal('invalid-request');
      expect((err as DomainError).details).to.deep.include({
        errors: [{ path: 'email', message: 'must be an email address of at most 254 characters' }],
      });
    }
  });
});
