import type { BusSchedule, City, Location, TransferFare, VehicleClass } from '../../domain/catalogue/catalogue.js';
import type { TariffReader } from '../../domain/catalogue/tariff.port.js';
import type { Operator } from '../../domain/catalogue/operator.js';
import { operatorOf, type OperatorRow } from './operator-directory.knex.js';
import { KnexStore } from './knex-store.js';
import { rows } from './sql.js';

interface ScheduleRow {
  id: string;
  from_city_id: string;
  to_city_id: string;
  operator_code: string;
  departure_times: string[];
  utc_offset_minutes: number;
  duration_minutes: number;
  seat_capacity: number;
  base_amount: number | string;
  currency: string;
}

interface FareRow {
  operator_code: string;
  from_zone: string;
  to_zone: string;
  vehicle_class: string;
  base_amount: number | string;
  currency: string;
  duration_minutes: number;
}

/** The priced catalogue on PostgreSQL. */
export class KnexTariffReader extends KnexStore implements TariffReader {
  async findLocations(ids: readonly string[]): Promise<Location[]> {
    if (ids.length === 0) return [];
    return (await this.knex('locations')
      .select('id', 'code', 'name', 'type', 'city', 'country', 'zone')
      .whereIn('id', [...ids])) as Location[];
  }

  async findCities(ids: readonly string[]): Promise<City[]> {
    if (ids.length === 0) return [];
    return (await this.knex('cities')
      .select('id', 'name', 'country')
      .whereIn('id', [...ids])) as City[];
  }

  async vehicleClasses(): Promise<VehicleClass[]> {
    const rows = (await this.knex('vehicle_classes')
      .select('code', 'name', 'max_passengers')
      .orderByRaw('max_passengers, code COLLATE "C"')) as Array<{ code: string; name: string; max_passengers: number }>;
    return rows.map((r) => ({ code: r.code, name: r.name, maxPassengers: r.max_passengers }));
  }

  async transferFares(zoneA: string, zoneB: string): Promise<TransferFare[]> {
    const rows = (await this.knex('transfer_fares')
      .where((q) => q.where({ from_zone: zoneA, to_zone: zoneB }).orWhere({ from_zone: zoneB, to_zone: zoneA }))
      .orderByRaw('vehicle_class COLLATE "C"')) as FareRow[];
    // A fare defined in both directions counts once: the one in the asked direction wins.
    const byClass = new Map<string, FareRow>();
    for (const r of rows) {
      if (!byClass.has(r.vehicle_class) || r.from_zone === zoneA) byClass.set(r.vehicle_class, r);
    }
    return [...byClass.values()].map((r) => ({
      operatorCode: r.operator_code,
      fromZone: r.from_zone,
      toZone: r.to_zone,
      vehicleClass: r.vehicle_class,
      baseFare: { amount: Number(r.base_amount), currency: r.currency.trim() },
      durationMinutes: r.duration_minutes,
    }));
  }

  async findOperators(codes: readonly string[]): Promise<Operator[]> {
    if (codes.length === 0) return [];
    // Prepared: every order reads its operator's terms.
    return (
      await rows<OperatorRow>(this.knex, 'SELECT * FROM operators WHERE code = ANY ($1::text[])', [[...codes]], 'operators.find')
    ).map(operatorOf);
  }

  async findSchedule(scheduleId: string): Promise<BusSchedule | null> {
    const row = (await this.knex('bus_schedules').where({ id: scheduleId }).first()) as ScheduleRow | undefined;
    return row === undefined ? null : scheduleOf(row);
  }

  async schedulesBetween(fromCityId: string, toCityId: string): Promise<BusSchedule[]> {
    const rows = (await this.knex('bus_schedules')
      .where({ from_city_id: fromCityId, to_city_id: toCityId })
      .orderByRaw('id COLLATE "C"')) as ScheduleRow[];
    return rows.map(scheduleOf);
  }
}

const scheduleOf = (r: ScheduleRow): BusSchedule => ({
  id: r.id,
  fromCityId: r.from_city_id,
  toCityId: r.to_city_id,
  operatorCode: r.operator_code,
  departureTimes: r.departure_times,
  utcOffsetMinutes: r.utc_offset_minutes,
  durationMinutes: r.duration_minutes,
  seatCapacity: r.seat_capacity,
  baseFare: { amount: Number(r.base_amount), currency: r.currency.trim() },
});
