import type { CommonPasswords } from '../../domain/identity/common-passwords.port.js';

/**
 * The common-password list of zxcvbn-ts (about 49,000 passwords ranked by frequency in public
 * breaches), held in memory as a lower-cased set. The package is loaded on the first check, not
 * at start: most processes (an admin command, a booking-only instance) never set a password.
 */
export class ZxcvbnCommonPasswords implements CommonPasswords {
  // Shared by every instance: the list is the same for all.
  private static list: Promise<ReadonlySet<string>> | null = null;

  async includes(password: string): Promise<boolean> {
    ZxcvbnCommonPasswords.list ??= import('@zxcvbn-ts/language-common').then(
      ({ dictionary }) => new Set(dictionary['passwords-common'].map((p) => p.toLowerCase())),
    );
    return (await ZxcvbnCommonPasswords.list).has(password.toLowerCase());
  }
}
