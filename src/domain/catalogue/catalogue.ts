import type { Money } from '../shared/money.js';
import type { FleetEntry, Operator } from './operator.js';

export type LocationType = 'airport' | 'district' | 'hotel';

/** A pick-up or drop-off point for airport transfers. */
export interface Location {
  readonly id: string;
  /** IATA code for airports, a short code otherwise. */
  readonly code: string;
  readonly name: string;
  readonly type: LocationType;
  readonly city: string;
  readonly country: string;
  /** The fare zone the location is priced in. */
  readonly zone: string;
}

/** A city served by express buses. */
export interface City {
  readonly id: string;
  readonly name: string;
  readonly country: string;
}

/** A vehicle class for transfers, with how many passengers it carries. */
export interface VehicleClass {
  readonly code: string;
  readonly name: string;
  readonly maxPassengers: number;
}

/** The base fare of one vehicle between two fare zones (either direction), and who drives it. */
export interface TransferFare {
  readonly operatorCode: string;
  readonly fromZone: string;
  readonly toZone: string;
  readonly vehicleClass: string;
  readonly baseFare: Money;
  readonly durationMinutes: number;
}

/** A daily express-bus service between two cities. */
export interface BusSchedule {
  readonly id: string;
  readonly fromCityId: string;
  readonly toCityId: string;
  /** The operator that runs it. */
  readonly operatorCode: string;
  /** Local departure times, `HH:MM`, in the schedule's time zone. */
  readonly departureTimes: readonly string[];
  /** Offset of the local time zone from UTC in minutes (Thailand: +420, no daylight saving). */
  readonly utcOffsetMinutes: number;
  readonly durationMinutes: number;
  readonly seatCapacity: number;
  /** Base fare per seat. */
  readonly baseFare: Money;
}

/** Everything `catalogue seed` loads. */
export interface Catalogue {
  /** Loaded first: the fares and schedules name them. */
  readonly operators: readonly Operator[];
  /** Vehicles per class and pickup hour of transfer operators (loaded after the vehicle classes). */
  readonly fleets: readonly FleetEntry[];
  readonly locations: readonly Location[];
  readonly cities: readonly City[];
  readonly vehicleClasses: readonly VehicleClass[];
  readonly transferFares: readonly TransferFare[];
  readonly schedules: readonly BusSchedule[];
}

/** A catalogue of only what is given, empty of everything else: a part of one to load. */
export const catalogueOf = (part: Partial<Catalogue>): Catalogue => ({
  operators: [],
  fleets: [],
  locations: [],
  cities: [],
  vehicleClasses: [],
  transferFares: [],
  schedules: [],
  ...part,
});

/** The smallest and largest search text, and the largest page of suggestions. */
export const SEARCH_LIMITS = { minQuery: 1, maxQuery: 64, defaultLimit: 10, maxLimit: 50 } as const;
