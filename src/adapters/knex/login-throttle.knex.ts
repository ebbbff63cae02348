import type { ThrottlePolicy } from '../../domain/identity/login-throttle.js';
import type { LoginThrottleStore, ThrottleState } from '../../domain/identity/login-throttle.port.js';
import { KnexStore } from './knex-store.js';

/**
 * Login attempt counters in PostgreSQL, so every instance counts against the same limit. One
 * upsert per attempt: the row lock of ON CONFLICT DO UPDATE serialises concurrent attempts.
 */
export class KnexLoginThrottle extends KnexStore implements LoginThrottleStore {
  async hit(key: string, now: Date, policy: ThrottlePolicy): Promise<ThrottleState> {
    const windowStart = new Date(now.getTime() - policy.windowSeconds * 1000);
    const lockUntil = new Date(now.getTime() + policy.lockSeconds * 1000);
    // `fresh`: the window has passed with no lock, or an earlier lock has ended: counting starts over.
    const fresh = `((t.locked_until IS NULL AND t.window_started_at <= :windowStart) OR t.locked_until <= :now)`;
    const counted = `(CASE WHEN ${fresh} THEN 1 ELSE t.attempts + 1 END)`;
    const result = await this.knex.raw<{ rows: Array<{ attempts: number; locked_until: Date | null }> }>(
      `INSERT INTO login_throttle AS t (key, attempts, window_started_at, locked_until)
       VALUES (:key, 1, :now, CASE WHEN 1 > :max THEN CAST(:lockUntil AS timestamptz) ELSE NULL END)
       ON CONFLICT (key) DO UPDATE SET
         attempts = ${counted},
         window_started_at = CASE WHEN ${fresh} THEN :now ELSE t.window_started_at END,
         locked_until = CASE
           WHEN t.locked_until > :now THEN t.locked_until
           WHEN ${counted} > :max THEN CAST(:lockUntil AS timestamptz)
           ELSE NULL END
       RETURNING attempts, locked_until`,
      { key, now, windowStart, lockUntil, max: policy.maxAttempts },
    );
    const r = result.rows[0]!;
    return { attempts: r.attempts, lockedUntil: r.locked_until === null ? null : new Date(r.locked_until) };
  }

  async release(key: string, all: boolean): Promise<void> {
    if (all) {
      await this.knex('login_throttle').where({ key }).delete();
      return;
    }
    await this.knex('login_throttle')
      .where({ key })
      .update({ attempts: this.knex.raw('GREATEST(attempts - 1, 0)') });
  }

  async purgeExpired(now: Date, windowSeconds: number): Promise<number> {
    const windowStart = new Date(now.getTime() - windowSeconds * 1000);
    // RETURNING rather than the affected-row count, which PGlite's Knex dialect does not report.
    const gone = await this.knex('login_throttle')
      .where('window_started_at', '<=', windowStart)
      .andWhere((q) => q.whereNull('locked_until').orWhere('locked_until', '<=', now))
      .delete()
      .returning('key');
    return gone.length;
  }
}
