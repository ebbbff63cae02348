/** Replaces the key that signs wallet tokens. */
export interface SigningKeyRotation {
  /**
   * Makes a new key the signing key at once. The previous key keeps verifying, and stays
   * published, until every token it signed has expired. Throws DomainError `invalid-request`
   * when keys come from configuration.
   */
  rotate(): Promise<{ kid: string; previousKid: string | null }>;
}
