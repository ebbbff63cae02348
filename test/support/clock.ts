import type { Clock } from '../../src/domain/shared/clock.port.js';

/**
 * A clock a test moves. It runs with the wall clock, shifted by `advance`, so time still passes
 * between two requests (orders listed newest first stay ordered) while a test jumps past a
 * quote's expiry or an order's departure; `set` stops it at an instant. Give it to
 * `startTestApp({ clock })`: every rule of that service instance reads it.
 */
export class ManualClock implements Clock {
  private offsetMs = 0;
  private stoppedAt: number | null = null;

  now(): Date {
    return new Date(this.stoppedAt ?? Date.now() + this.offsetMs);
  }

  /** Moves time by `ms` (backward when negative), stopped or running. */
  advance(ms: number): void {
    if (this.stoppedAt !== null) this.stoppedAt += ms;
    else this.offsetMs += ms;
  }

  /** Stops the clock at `at`. */
  set(at: Date): void {
    this.stoppedAt = at.getTime();
  }

  /** Back to the wall clock, running. */
  reset(): void {
    this.offsetMs = 0;
    this.stoppedAt = null;
  }

  /**
   * Runs `body` with the clock moved by `ms`, then back to the wall clock whatever `body` does,
   * so that the next test on the same instance starts at the real time.
   */
  async shifted<T>(ms: number, body: () => Promise<T>): Promise<T> {
    this.advance(ms);
    try {
      return await body();
    } finally {
      this.reset();
    }
  }
}

export const MINUTE_MS = 60_000;
export const HOUR_MS = 60 * MINUTE_MS;
export const DAY_MS = 24 * HOUR_MS;
