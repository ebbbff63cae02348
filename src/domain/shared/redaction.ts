/**
 * The service's credentials are made to be recognised (a fixed prefix, a known alphabet), so a
 * secret placed where it does not belong — an API key in a URL path, a token as an
 * `X-Request-Id` or a `User-Agent` — can be told from the text around it and kept out of every
 * log line, span and event. One recogniser for every sink:
 *
 * - agent and operator API keys, live and test: `pbk_…`, `pbo_…`, `pbk_test_…`, `pbo_test_…`
 *   (base62; the underscore may come percent-encoded in a URL);
 * - client secrets: `pbcs_` and hex;
 * - JWTs (access tokens, assertions, DPoP proofs): three base64url segments, the first a JSON
 *   header (`eyJ…`).
 *
 * A display prefix (`pbk_` and four characters, as events and listings show it) is no secret
 * and is left as it is.
 */
const UNDERSCORE = '(?:_|%5[Ff])';
const SECRET_SOURCE = [
  `pb[ko]${UNDERSCORE}(?:test${UNDERSCORE})?[A-Za-z0-9]{16,}`,
  `pbcs${UNDERSCORE}[0-9a-fA-F]{16,}`,
  'eyJ[A-Za-z0-9_-]{2,}\\.[A-Za-z0-9_-]{2,}\\.[A-Za-z0-9_-]*',
].join('|');
const SECRET = new RegExp(SECRET_SOURCE);
const SECRETS = new RegExp(SECRET_SOURCE, 'g');

/** What stands in the place of a recognised secret. */
export const REDACTED = '[redacted]';

/** Whether the text holds something that has the form of one of the service's secrets. */
export const looksLikeSecret = (text: string): boolean => SECRET.test(text);

/** The text with every recognised secret replaced by `[redacted]` (the same string when none). */
export const redactSecrets = (text: string): string => (SECRET.test(text) ? text.replace(SECRETS, REDACTED) : text);
