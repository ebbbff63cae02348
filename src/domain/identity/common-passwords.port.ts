/** A list of commonly used or breached passwords (NIST SP 800-63B asks new passwords to be checked against one). */
export interface CommonPasswords {
  /** True when the password, compared without regard to case, is on the list. */
  includes(password: string): Promise<boolean>;
}
