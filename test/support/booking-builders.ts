import type { Knex } from 'knex';
import { takeLoadedSchedules } from '../../src/testing/fixtures.js';

export { orderRecord, dateAhead, buildSchedule, tripIdOf, TestClock, reasonOf } from '../../src/testing/fixtures.js';

/** Deletes the schedules `buildSchedule` loaded into a database (their trips' seat rows too). */
export async function dropTestSchedules(knex: Knex): Promise<void> {
  const ids = takeLoadedSchedules();
  if (ids.length === 0) return;
  await knex('trip_inventory').whereIn('schedule_id', ids).delete();
  await knex('bus_schedules').whereIn('id', ids).delete();
}

/**
 * A clock for services under test: it runs with real time until the test sets it, which stops
 * it at that instant (so a boundary is hit exactly); `advance` moves it either way.
 */
export class ShiftedClock {
  private offsetMs = 0;
  private stoppedAt: number | null = null;
  now(): Date {
    return new Date(this.stoppedAt ?? Date.now() + this.offsetMs);
  }
  /** Stops the clock at `at`. */
  set(at: Date): void {
    this.stoppedAt = at.getTime();
  }
  advance(ms: number): void {
    if (this.stoppedAt !== null) this.stoppedAt += ms;
    else this.offsetMs += ms;
  }
  /** Back to real time, running. */
  reset(): void {
    this.offsetMs = 0;
    this.stoppedAt = null;
  }
}
