import type { ThrottlePolicy } from '../../domain/identity/login-throttle.js';
import type { LoginThrottleStore, ThrottleState } from '../../domain/identity/login-throttle.port.js';

interface Entry {
  attempts: number;
  windowStartedAt: Date;
  lockedUntil: Date | null;
}

/** Login attempt counters in process memory, with the same rules as the PostgreSQL store. */
export class MemoryLoginThrottle implements LoginThrottleStore {
  private readonly entries = new Map<string, Entry>();

  async hit(key: string, now: Date, policy: ThrottlePolicy): Promise<ThrottleState> {
    const t = now.getTime();
    const e = this.entries.get(key);
    let next: Entry;
    if (e === undefined) {
      next = { attempts: 1, windowStartedAt: now, lockedUntil: 1 > policy.maxAttempts ? new Date(t + policy.lockSeconds * 1000) : null };
    } else {
      const fresh =
        (e.lockedUntil === null && e.windowStartedAt.getTime() <= t - policy.windowSeconds * 1000) ||
        (e.lockedUntil !== null && e.lockedUntil.getTime() <= t);
      const attempts = fresh ? 1 : e.attempts + 1;
      const running = e.lockedUntil !== null && e.lockedUntil.getTime() > t;
      next = {
        attempts,
        windowStartedAt: fresh ? now : e.windowStartedAt,
        lockedUntil: running ? e.lockedUntil : attempts > policy.maxAttempts ? new Date(t + policy.lockSeconds * 1000) : null,
      };
    }
    this.entries.set(key, next);
    return { attempts: next.attempts, lockedUntil: next.lockedUntil };
  }

  async release(key: string, all: boolean): Promise<void> {
    const e = this.entries.get(key);
    if (e === undefined) return;
    if (all) this.entries.delete(key);
    else this.entries.set(key, { ...e, attempts: Math.max(0, e.attempts - 1) });
  }

  async purgeExpired(now: Date, windowSeconds: number): Promise<number> {
    const t = now.getTime();
    let n = 0;
    for (const [key, e] of this.entries) {
      const locked = e.lockedUntil !== null && e.lockedUntil.getTime() > t;
      if (!locked && e.windowStartedAt.getTime() <= t - windowSeconds * 1000) {
        this.entries.delete(key);
        n += 1;
      }
    }
    return n;
  }
}
