import { DomainError } from '../shared/errors.js';
import type { CommonPasswords } from './common-passwords.port.js';

/** Password length bounds: long enough to matter, short enough to hash cheaply. */
export const PASSWORD_LENGTH = { min: 8, max: 256 } as const;

// One to three characters repeated (`aaaaaaaa`, `abababab`, `123123123`): guessed as early as a
// listed password, whatever its length.
const REPETITIVE = /^([\s\S]{1,3})\1+$/u;

/**
 * A new password (not one presented at login) must be 8..256 characters, not on the list of
 * common or breached passwords, and not a short run repeated: `invalid-request` for the length,
 * `password-too-common` for the rest. This is the one password rule: the HTTP schema and the
 * command line defer to it.
 */
export async function checkNewPassword(password: string, common: CommonPasswords): Promise<void> {
  if (password.length < PASSWORD_LENGTH.min || password.length > PASSWORD_LENGTH.max) {
    throw new DomainError('invalid-request', {
      message: `password must be ${PASSWORD_LENGTH.min}-${PASSWORD_LENGTH.max} characters.`,
      details: { errors: [{ path: 'password', message: `must be ${PASSWORD_LENGTH.min}-${PASSWORD_LENGTH.max} characters` }] },
    });
  }
  if (REPETITIVE.test(password) || (await common.includes(password))) {
    throw new DomainError('password-too-common');
  }
}
