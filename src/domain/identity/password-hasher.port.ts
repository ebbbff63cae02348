/** One-way hashing of low-entropy secrets (passwords) with a memory-hard function. */
export interface PasswordHasher {
  /** Returns a self-describing hash (algorithm, cost and salt included) of the password. */
  hash(password: string): Promise<string>;
  /**
   * True when the password matches the stored hash. When `stored` is null (no such account,
   * or no password set) it spends about as long as a real verification and returns false, so
   * response times do not tell which accounts exist.
   */
  verify(password: string, stored: string | null): Promise<boolean>;
}
