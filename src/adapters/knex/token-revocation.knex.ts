import type { NewSecurityEvent } from '../../domain/security-events/security-event.js';
import { recordSecurityEvents } from './security-events.knex.js';
import type { Knex } from 'knex';
import type { RevokedToken } from '../../domain/identity/token-revocation.port.js';
import { REVOKED_TOKENS_TABLE } from './migrations/0011-oauth-revocation.js';
import { KnexStore } from './knex-store.js';
import { rows } from './sql.js';

interface RevokedRow {
  jti: string;
  tenant_id: string;
  expires_at: Date;
  revoked_at: Date;
}

/** The revoked tokens table: written on revocation, read in full only when an instance (re)loads. */
export class KnexRevokedTokenStore extends KnexStore {
  /**
   * Records a revocation (a second one of the same jti changes nothing); the trigger announces it.
   * `event` is recorded in the same transaction when this call made the revocation.
   */
  async insert(token: RevokedToken, now: Date, event?: NewSecurityEvent): Promise<void> {
    const write = (db: Knex | Knex.Transaction) =>
      db<RevokedRow>(REVOKED_TOKENS_TABLE)
        .insert({ jti: token.jti, tenant_id: token.tenantId, expires_at: token.expiresAt, revoked_at: now })
        .onConflict('jti')
        .ignore()
        .returning('jti');
    if (event === undefined) {
      await write(this.knex);
      return;
    }
    await this.knex.transaction(async (trx) => {
      const inserted = await write(trx);
      if (inserted.length > 0) await recordSecurityEvents(trx, [event]);
    });
  }

  /** Whether this jti is recorded (the fallback while an instance may have missed announcements). */
  async has(jti: string): Promise<boolean> {
    const row = await this.knex(REVOKED_TOKENS_TABLE).where({ jti }).first('jti');
    return row !== undefined;
  }

  /** Every revocation whose token could still be presented (expiry after `after`). */
  async listLive(after: Date): Promise<Array<{ jti: string; exp: number }>> {
    const rows = await this.knex<RevokedRow>(REVOKED_TOKENS_TABLE).where('expires_at', '>', after).select('jti', 'expires_at');
    return rows.map((r) => ({ jti: r.jti, exp: Math.floor(new Date(r.expires_at).getTime() / 1000) }));
  }

  /** Forgets revocations of tokens that expired before `before`; returns how many. */
  /** RETURNING rather than the affected-row count, which PGlite's Knex dialect does not report. */
  async purge(before: Date): Promise<number> {
    const gone = await rows<{ jti: string }>(
      this.knex,
      `DELETE FROM ${REVOKED_TOKENS_TABLE} WHERE expires_at < $1 RETURNING jti`,
      [before],
      'revoked-tokens.purge',
    );
    return gone.length;
  }
}
