import { DomainError } from '../shared/errors.js';

/** The longest address a mailbox can have (RFC 5321 path limit less its brackets). */
export const EMAIL_MAX_LENGTH = 254;
/** The longest local part (RFC 5321 §4.5.3.1.1), in octets. */
export const EMAIL_LOCAL_MAX_LENGTH = 64;
/** The longest domain (RFC 1035 §2.3.4, less the root's dot), in octets. */
const DOMAIN_MAX_LENGTH = 253;
/** The longest label of a domain (RFC 1035 §2.3.4), in octets. */
const LABEL_MAX_LENGTH = 63;

// The rules of a maintained validator (validator.js `isEmail` with its defaults, `isFQDN` for the
// domain): a dot-atom local part (RFC 5322 atext, UTF-8 allowed, RFC 6531), and a domain of
// labels of letters, digits and inner hyphens (internationalised labels allowed), whose last
// label (the TLD) is letters only, or an A-label (`xn--…`).
const LOCAL_ATOM = /^[a-z\d!#$%&'*+\-/=?^_`{|}~\u00a1-\ud7ff\uf900-\ufdcf\ufdf0-\uffef]+$/i;
const LABEL = /^[a-z\d\u00a1-\uffff](?:[a-z\d\u00a1-\uffff-]*[a-z\d\u00a1-\uffff])?$/i;
const TLD = /^(?:[a-z\u00a1-\u00a8\u00aa-\ud7ff\uf900-\ufdcf\ufdf0-\uffef]{2,}|xn--[a-z\d-]{2,})$/i;
// Full-width forms look like ASCII but are other characters: refused, as validator.js does.
const FULL_WIDTH = /[\uff01-\uff5e]/;

const octets = (text: string): number => new TextEncoder().encode(text).length;

/**
 * Whether `email` (already trimmed) is a login address: one `@`; a local part of 1..64 octets,
 * dot-separated atoms with no leading, trailing or doubled dot, no quoting; a domain of at most
 * 253 octets and at least two labels, each 1..63 octets, none starting or ending with a hyphen,
 * no empty label (so no leading, trailing or doubled dot); a top-level label that is not
 * numeric; 254 octets in all.
 */
export const isEmailAddress = (email: string): boolean => {
  if (octets(email) > EMAIL_MAX_LENGTH) return false;
  const at = email.lastIndexOf('@');
  if (at <= 0 || email.indexOf('@') !== at) return false;
  const local = email.slice(0, at);
  const domain = email.slice(at + 1);
  if (octets(local) > EMAIL_LOCAL_MAX_LENGTH || !local.split('.').every((atom) => LOCAL_ATOM.test(atom))) return false;
  if (octets(domain) > DOMAIN_MAX_LENGTH || FULL_WIDTH.test(domain)) return false;
  const labels = domain.split('.');
  if (labels.length < 2) return false;
  if (!labels.every((label) => octets(label) <= LABEL_MAX_LENGTH && LABEL.test(label))) return false;
  return TLD.test(labels[labels.length - 1]!);
};

/**
 * The login address of a new wallet user, trimmed; `invalid-request` (on `email`) when it is not
 * an address by `isEmailAddress`. This is the one email rule: the HTTP schema and the command
 * line defer to it.
 */
export const checkEmailAddress = (email: string): string => {
  const trimmed = email.trim();
  if (!isEmailAddress(trimmed)) {
    throw new DomainError('invalid-request', {
      message: 'email is not a valid address.',
      details: { errors: [{ path: 'email', message: `must be an email address of at most ${EMAIL_MAX_LENGTH} characters` }] },
    });
  }
  return trimmed;
};
