import { DomainError } from '../shared/errors.js';

/** The longest address a mailbox can have (RFC 5321 path limit less its brackets). */
export const EMAIL_MAX_LENGTH = 254;

// A local part, an @ and a dotted domain, with no blanks: what a login address needs, no more.
const EMAIL = /^[^\s@]{1,64}@[^\s@]{1,253}\.[^\s@]{1,63}$/;

/**
 * The login address of a new wallet user, trimmed; `invalid-request` (on `email`) when it is not
 * an address. This is the one email rule: the HTTP schema and the command line defer to it.
 */
export const checkEmailAddress = (email: string): string => {
  const trimmed = email.trim();
  if (trimmed.length > EMAIL_MAX_LENGTH || !EMAIL.test(trimmed)) {
    throw new DomainError('invalid-request', {
      message: 'email is not a valid address.',
      details: { errors: [{ path: 'email', message: `must be an email address of at most ${EMAIL_MAX_LENGTH} characters` }] },
    });
  }
  return trimmed;
};
