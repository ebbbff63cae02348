import type { BusSchedule } from '../catalogue/catalogue.js';

/** One departure of a bus schedule: what an agent can book seats on. */
export interface Trip {
  /** `trp_<schedule id without its prefix>_<departure instant as YYYYMMDDHHmm UTC>`. */
  readonly id: string;
  readonly scheduleId: string;
  readonly fromCityId: string;
  readonly toCityId: string;
  /** The operator that runs the schedule. */
  readonly operatorCode: string;
  readonly departsAt: Date;
  readonly arrivesAt: Date;
  readonly seatCapacity: number;
}

/** How far ahead trips and transfers can be booked. */
const BOOKING_HORIZON_DAYS = 365;
const DAY_MS = 86_400_000;

/** A calendar date `YYYY-MM-DD` that exists (no 2026-02-30). */
export const isCalendarDate = (text: string): boolean => {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(text)) return false;
  const d = new Date(`${text}T00:00:00.000Z`);
  return !Number.isNaN(d.getTime()) && d.toISOString().slice(0, 10) === text;
};

/** True when `at` is not beyond the booking horizon counted from `now`. */
export const withinHorizon = (at: Date, now: Date): boolean => at.getTime() <= now.getTime() + BOOKING_HORIZON_DAYS * DAY_MS;

/**
 * The departures of a schedule on a local calendar date (the schedule's own time zone), in
 * departure order.
 */
export const tripsOn = (schedule: BusSchedule, localDate: string): Trip[] =>
  schedule.departureTimes
    .map((hhmm) => {
      const local = Date.parse(`${localDate}T${hhmm}:00.000Z`);
      return tripAt(schedule, new Date(local - schedule.utcOffsetMinutes * 60_000));
    })
    .sort((a, b) => a.departsAt.getTime() - b.departsAt.getTime());

/** The trip of a schedule that departs at an instant, or null when the schedule has no such departure. */
export const tripOfSchedule = (schedule: BusSchedule, departsAt: Date): Trip | null => {
  const local = new Date(departsAt.getTime() + schedule.utcOffsetMinutes * 60_000);
  const hhmm = local.toISOString().slice(11, 16);
  if (local.getUTCSeconds() !== 0 || local.getUTCMilliseconds() !== 0) return null;
  return schedule.departureTimes.includes(hhmm) ? tripAt(schedule, departsAt) : null;
};

/** Splits a trip id into its schedule and departure; null for anything that is not one. */
export const parseTripId = (tripId: string): { scheduleId: string; departsAt: Date } | null => {
  const m = /^trp_([A-Za-z0-9_-]{1,100})_(\d{4})(\d{2})(\d{2})(\d{2})(\d{2})$/.exec(tripId);
  if (m === null) return null;
  const [, schedule, y, mo, d, h, mi] = m;
  const iso = `${y}-${mo}-${d}T${h}:${mi}:00.000Z`;
  const departsAt = new Date(iso);
  if (Number.isNaN(departsAt.getTime()) || departsAt.toISOString() !== iso) return null;
  return { scheduleId: `sch_${schedule}`, departsAt };
};

const tripIdOf = (scheduleId: string, departsAt: Date): string => {
  const stamp = departsAt.toISOString().replace(/[-:T]/g, '').slice(0, 12);
  return `trp_${scheduleId.replace(/^sch_/, '')}_${stamp}`;
};

const tripAt = (schedule: BusSchedule, departsAt: Date): Trip => ({
  id: tripIdOf(schedule.id, departsAt),
  scheduleId: schedule.id,
  fromCityId: schedule.fromCityId,
  toCityId: schedule.toCityId,
  operatorCode: schedule.operatorCode,
  departsAt,
  arrivesAt: new Date(departsAt.getTime() + schedule.durationMinutes * 60_000),
  seatCapacity: schedule.seatCapacity,
});
