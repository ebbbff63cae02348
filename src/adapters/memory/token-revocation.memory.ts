import type { NewSecurityEvent } from '../../domain/security-events/security-event.js';
import type { MemorySecurityEvents } from './security-events.memory.js';
import type { RevokedTokenStore } from '../cache/token-revocation-list.cached.js';
import type { RevokedToken } from '../../domain/identity/token-revocation.port.js';

/** Revoked tokens in process memory (one instance, no database). */
export class MemoryRevokedTokenStore implements RevokedTokenStore {
  private readonly rows = new Map<string, RevokedToken>();

  /** `trail` records a revocation's event in the same step, as the database's transaction would. */
  constructor(private readonly trail?: MemorySecurityEvents) {}

  async insert(token: RevokedToken, _now?: Date, event?: NewSecurityEvent): Promise<void> {
    if (this.rows.has(token.jti)) return;
    this.rows.set(token.jti, { ...token });
    if (event !== undefined) this.trail?.record([event]);
  }

  async has(jti: string): Promise<boolean> {
    return this.rows.has(jti);
  }

  async listLive(after: Date): Promise<Array<{ jti: string; exp: number }>> {
    return [...this.rows.values()]
      .filter((r) => r.expiresAt > after)
      .map((r) => ({ jti: r.jti, exp: Math.floor(r.expiresAt.getTime() / 1000) }));
  }

  async purge(before: Date): Promise<number> {
    let n = 0;
    for (const [jti, r] of this.rows) if (r.expiresAt < before) n += Number(this.rows.delete(jti));
    return n;
  }
}
