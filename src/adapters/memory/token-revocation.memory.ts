import type { RevokedTokenStore } from '../cache/token-revocation-list.cached.js';
import type { RevokedToken } from '../../domain/identity/token-revocation.port.js';

/** Revoked tokens in process memory (one instance, no database). */
export class MemoryRevokedTokenStore implements RevokedTokenStore {
  private readonly rows = new Map<string, RevokedToken>();

  async insert(token: RevokedToken): Promise<void> {
    if (!this.rows.has(token.jti)) this.rows.set(token.jti, { ...token });
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
