import type { ThrottlePolicy } from './login-throttle.js';

/** The state of one throttle key after an attempt was counted. */
export interface ThrottleState {
  /** Attempts counted in the current window, this one included. */
  readonly attempts: number;
  /** Until when the key is refused; null when it is not. */
  readonly lockedUntil: Date | null;
}

/** Login attempt counters shared by every instance (in the database). */
export interface LoginThrottleStore {
  /**
   * Counts one attempt against `key` at `now` under `policy` and returns the state afterwards.
   * The window restarts when it has passed or when an earlier lock has ended. The attempt that
   * goes over `policy.maxAttempts` sets `lockedUntil = now + lockSeconds`; a running lock is
   * never extended. Atomic: N concurrent calls count N attempts.
   */
  hit(key: string, now: Date, policy: ThrottlePolicy): Promise<ThrottleState>;
  /** Forgets one counted attempt (`all: false`) or every one (`all: true`). No-op for an unknown key. */
  release(key: string, all: boolean): Promise<void>;
  /**
   * Deletes the keys that no longer count at `now`: no lock in force and a window that started at
   * least `windowSeconds` ago. Their next attempt would start over at 1 anyway, so nothing a
   * throttle decides changes; the store just stays bounded however many made-up accounts are
   * tried. Returns how many keys went.
   */
  purgeExpired(now: Date, windowSeconds: number): Promise<number>;
}
