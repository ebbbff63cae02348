import type { Knex } from 'knex';
import type { BusSchedule } from '../../src/domain/catalogue/catalogue.js';
import type { CatalogueWriter } from '../../src/domain/catalogue/catalogue.port.js';
import type { Order } from '../../src/domain/booking/order.js';
import { unique } from './builders.js';

/** A confirmed airport-transfer order record of the agent's, starting in a day (for port-level tests). */
export const orderRecord = (agentId: string): Order => ({
  id: `ord_${unique()}`,
  agentId,
  channelCode: 'CH',
  keyId: 'key_1',
  quoteId: `qte_${unique()}`,
  product: 'airport-transfer',
  status: 'CONFIRMED',
  price: { amount: 100, currency: 'THB' },
  contact: { name: 'A', email: 'a@example.com', phone: null },
  passengers: [],
  agentReference: null,
  idempotencyKey: null,
  details: {} as Order['details'],
  seats: null,
  startsAt: new Date(Date.now() + 86_400_000),
  createdAt: new Date(),
  cancelledAt: null,
  terms: { freeCancellationHours: 24, lateCancellationFeeBps: 5000 },
  refund: null,
  fee: null,
});

/** A local date `days` ahead of today (UTC), as `YYYY-MM-DD`. */
export const dateAhead = (days: number): string => new Date(Date.now() + days * 86_400_000).toISOString().slice(0, 10);

/**
 * Loads a bus schedule of its own (Bangkok → Pattaya, one daily departure at 10:00 Bangkok time)
 * with the given capacity and fare, through the catalogue writer. The demo catalogue's cities
 * must be loaded first.
 */
export async function buildSchedule(
  writer: CatalogueWriter,
  overrides: Partial<Pick<BusSchedule, 'seatCapacity' | 'departureTimes' | 'operator'>> & { baseAmount?: number } = {},
): Promise<BusSchedule> {
  const schedule: BusSchedule = {
    id: `sch_test_${unique().toLowerCase()}`,
    fromCityId: 'cty_bangkok',
    toCityId: 'cty_pattaya',
    operator: overrides.operator ?? `Test Coaches ${unique()}`,
    departureTimes: overrides.departureTimes ?? ['10:00'],
    utcOffsetMinutes: 420,
    durationMinutes: 150,
    seatCapacity: overrides.seatCapacity ?? 40,
    baseFare: { amount: overrides.baseAmount ?? 18_000, currency: 'THB' },
  };
  await writer.load({ locations: [], cities: [], vehicleClasses: [], transferFares: [], schedules: [schedule] });
  createdSchedules.add(schedule.id);
  return schedule;
}

/** Schedules this run loaded, so that they can be removed and a kept database's trip listings stay short. */
const createdSchedules = new Set<string>();

/** Deletes the schedules `buildSchedule` loaded into a database (their trips' seat rows too). */
export async function dropTestSchedules(knex: Knex): Promise<void> {
  const ids = [...createdSchedules];
  if (ids.length === 0) return;
  await knex('trip_inventory').whereIn('schedule_id', ids).delete();
  await knex('bus_schedules').whereIn('id', ids).delete();
  for (const id of ids) createdSchedules.delete(id);
}

/** The id of a schedule's trip departing at `hhmm` Bangkok time on a local date. */
export const tripIdOf = (schedule: BusSchedule, localDate: string, hhmm = schedule.departureTimes[0]!): string => {
  const departs = new Date(Date.parse(`${localDate}T${hhmm}:00.000Z`) - schedule.utcOffsetMinutes * 60_000);
  return `trp_${schedule.id.slice(4)}_${departs.toISOString().replace(/[-:T]/g, '').slice(0, 12)}`;
};

/** A settable clock for use cases under test. */
export class TestClock {
  constructor(private at: Date = new Date()) {}
  now(): Date {
    return new Date(this.at.getTime());
  }
  set(at: Date): void {
    this.at = at;
  }
  advance(ms: number): void {
    this.at = new Date(this.at.getTime() + ms);
  }
}

/** The reason of a DomainError the promise rejects with, or 'resolved'. */

export { reasonOf } from './errors.js';
