import type { BusSchedule, City, Location, TransferFare, VehicleClass } from './catalogue.js';
import type { Operator } from './operator.js';

/** Reads the priced part of the catalogue: what quotes and trip listings are computed from. */
export interface TariffReader {
  /** Returns the locations with these ids that exist (any order); unknown ids are simply absent. */
  findLocations(ids: readonly string[]): Promise<Location[]>;
  /** Returns the bus cities with these ids that exist (any order); unknown ids are simply absent. */
  findCities(ids: readonly string[]): Promise<City[]>;
  /** Every vehicle class, smallest capacity first (ties by code). */
  vehicleClasses(): Promise<VehicleClass[]>;
  /** The fares between two zones in either direction, one per vehicle class; empty when none. */
  transferFares(zoneA: string, zoneB: string): Promise<TransferFare[]>;
  /** The operators with these codes that exist (any order); unknown codes are simply absent. */
  findOperators(codes: readonly string[]): Promise<Operator[]>;
  /** The schedule, or null. */
  findSchedule(scheduleId: string): Promise<BusSchedule | null>;
  /** The schedules from one city to another (that direction only), by id; empty when none. */
  schedulesBetween(fromCityId: string, toCityId: string): Promise<BusSchedule[]>;
}
