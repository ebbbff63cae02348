import { dictionary } from '@zxcvbn-ts/language-common';
import type { CommonPasswords } from '../../domain/identity/common-passwords.port.js';

/**
 * The common-password list of zxcvbn-ts (about 49,000 passwords ranked by frequency in public
 * breaches), held in memory as a lower-cased set.
 */
export class ZxcvbnCommonPasswords implements CommonPasswords {
  // Built on first use and shared: the list is the same for every instance of the service.
  private static list: ReadonlySet<string> | null = null;

  includes(password: string): boolean {
    ZxcvbnCommonPasswords.list ??= new Set(dictionary['passwords-common'].map((p) => p.toLowerCase()));
    return ZxcvbnCommonPasswords.list.has(password.toLowerCase());
  }
}
