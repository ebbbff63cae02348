import { DomainError } from '../shared/errors.js';
import type { ThrottleState } from './login-throttle.port.js';

/** How many attempts a key may make per window, and how long it is refused after that. */
export interface ThrottlePolicy {
  readonly maxAttempts: number;
  readonly windowSeconds: number;
  readonly lockSeconds: number;
}

/**
 * Password guessing is bounded per account (client + email, whether or not it exists, so the
 * limit tells nothing) and per client address (one address trying many accounts).
 */
export const LOGIN_THROTTLE = {
  account: { maxAttempts: 5, windowSeconds: 900, lockSeconds: 900 },
  address: { maxAttempts: 20, windowSeconds: 900, lockSeconds: 900 },
} as const satisfies Record<string, ThrottlePolicy>;

/** The longest window of the login policies: a key idle that long, and not locked, counts for nothing. */
export const LOGIN_THROTTLE_WINDOW_SECONDS = Math.max(...Object.values(LOGIN_THROTTLE).map((p) => p.windowSeconds));

export const accountThrottleKey = (clientId: string, normalizedEmail: string): string => `account:${clientId}:${normalizedEmail}`;
export const addressThrottleKey = (address: string): string => `address:${address}`;

/** Whole seconds until a lock ends (at least 1), or 0 when the state is not locked at `now`. */
export const retryAfterSeconds = (state: ThrottleState, now: Date): number => {
  if (state.lockedUntil === null) return 0;
  const ms = state.lockedUntil.getTime() - now.getTime();
  return ms <= 0 ? 0 : Math.max(1, Math.ceil(ms / 1000));
};

/** Refuses the attempt when any of the states is locked, naming the longest wait. */
export const requireNotThrottled = (states: readonly ThrottleState[], now: Date): void => {
  const wait = Math.max(0, ...states.map((s) => retryAfterSeconds(s, now)));
  if (wait > 0) {
    throw new DomainError('too-many-attempts', {
      details: {
        retryAfterSeconds: wait,
      },
    });
  }
};
