import type { NewSecurityEvent } from '../security-events/security-event.js';
/** One revoked wallet token, remembered until it would have expired anyway. */
export interface RevokedToken {
  readonly jti: string;
  readonly tenantId: string;
  readonly expiresAt: Date;
}

/**
 * The wallet tokens revoked before their `exp` (RFC 7009 revocation, sign-out), shared by every
 * instance.
 */
export interface TokenRevocationList {
  /**
   * Whether the token with this `jti` was revoked. Answers synchronously, without I/O, while the
   * instance is sure to have heard of every revocation; otherwise (feed down, still loading) it
   * asks the store and returns a promise.
   */
  isRevoked(jti: string): boolean | Promise<boolean>;
  /**
   * Records a revocation. Idempotent (revoking twice is one revocation). Refused on this
   * instance as soon as the promise resolves, and on every other instance within a second.
   * `event` (`token.revoked`) is recorded in the same transaction, by the first revocation only.
   */
  revoke(token: RevokedToken, event?: NewSecurityEvent): Promise<void>;
}
