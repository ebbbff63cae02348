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
