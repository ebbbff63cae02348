import type { BusSchedule, Catalogue, City, Location, TransferFare, VehicleClass } from '../../domain/catalogue/catalogue.js';
import { operatorCodeOf, type FleetEntry, type Operator } from '../../domain/catalogue/operator.js';

/** The shipped demo catalogue: Thailand. Ids are stable so that loading twice changes nothing. */

const TH = 'Thailand';
const THB = 'THB';
const BANGKOK_TIME = 7 * 60;
const BANGKOK_ZONE = 'Asia/Bangkok';

const operator = (name: string, confirmation: Operator['confirmation'], confirmationWindowMinutes = 120): Operator => ({
  code: operatorCodeOf(name),
  name,
  timezone: BANGKOK_ZONE,
  confirmation,
  confirmationWindowMinutes,
  livemode: true,
});

/**
 * The transfer operators: rides from and within Bangkok (the README tour's transfer) confirm at
 * once; rides within Phuket and within Pattaya confirm on request. Their codes are the slugs of their names, as the
 * migration that introduced operators made them for an existing catalogue.
 */
export const TRANSFER_OPERATORS: readonly Operator[] = [
  operator('Siam Airport Transfers', 'instant'),
  operator('Andaman Coast Transfers', 'on-request', 180),
];

/** The bus operators, by the names the schedules have always shown. */
export const BUS_OPERATORS: readonly Operator[] = [
  operator('Northern Star Express', 'instant'),
  operator('Gulf Coast Coaches', 'instant'),
  operator('Royal Beach Line', 'on-request', 120),
  operator('Andaman VIP', 'on-request', 240),
  operator('Isan Express', 'instant'),
];

/** How many vehicles of each class every demo transfer operator has per pickup hour. */
export const DEMO_FLEET_VEHICLES = 4;

const loc = (id: string, code: string, name: string, type: Location['type'], city: string, zone: string): Location => ({
  id: `loc_${id}`,
  code,
  name,
  type,
  city,
  country: TH,
  zone,
});

export const LOCATIONS: readonly Location[] = [
  loc('bkk', 'BKK', 'Suvarnabhumi Airport', 'airport', 'Bangkok', 'BKK'),
  loc('dmk', 'DMK', 'Don Mueang Airport', 'airport', 'Bangkok', 'DMK'),
  loc('hkt', 'HKT', 'Phuket Airport', 'airport', 'Phuket', 'HKT'),
  loc('bkk_sukhumvit', 'SKV', 'Sukhumvit', 'district', 'Bangkok', 'BKK-CITY'),
  loc('bkk_silom', 'SLM', 'Silom', 'district', 'Bangkok', 'BKK-CITY'),
  loc('bkk_khaosan', 'KSR', 'Khao San Road', 'district', 'Bangkok', 'BKK-CITY'),
  loc('bkk_siam', 'SIA', 'Siam', 'district', 'Bangkok', 'BKK-CITY'),
  loc('bkk_h_riverside', 'HRV', 'Riverside Grand Hotel', 'hotel', 'Bangkok', 'BKK-CITY'),
  loc('bkk_h_sukhumvit', 'HCS', 'Hôtel Café Sukhumvit', 'hotel', 'Bangkok', 'BKK-CITY'),
  loc('bkk_h_silom', 'HSP', 'Silom Park Residence', 'hotel', 'Bangkok', 'BKK-CITY'),
  loc('pty_central', 'PTC', 'Central Pattaya', 'district', 'Pattaya', 'PATTAYA'),
  loc('pty_jomtien', 'JOM', 'Jomtien Beach', 'district', 'Pattaya', 'PATTAYA'),
  loc('pty_naklua', 'NKL', 'Naklua', 'district', 'Pattaya', 'PATTAYA'),
  loc('pty_h_bayview', 'HBV', 'Bayview Pattaya Resort', 'hotel', 'Pattaya', 'PATTAYA'),
  loc('hkt_patong', 'PTG', 'Patong Beach', 'district', 'Phuket', 'PHUKET-WEST'),
  loc('hkt_kata', 'KAT', 'Kata Beach', 'district', 'Phuket', 'PHUKET-WEST'),
  loc('hkt_town', 'PKT', 'Phuket Town', 'district', 'Phuket', 'PHUKET-TOWN'),
  loc('hkt_h_andaman', 'HAS', 'Andaman Sands Hotel', 'hotel', 'Phuket', 'PHUKET-WEST'),
  loc('hkt_h_oldtown', 'HOT', 'Old Town Heritage Inn', 'hotel', 'Phuket', 'PHUKET-TOWN'),
];

const city = (id: string, name: string): City => ({ id: `cty_${id}`, name, country: TH });

export const CITIES: readonly City[] = [
  city('bangkok', 'Bangkok'),
  city('chiangmai', 'Chiang Mai'),
  city('pattaya', 'Pattaya'),
  city('huahin', 'Hua Hin'),
  city('phuket', 'Phuket'),
  city('khonkaen', 'Khon Kaen'),
];

/** The vehicle classes of the shipped catalogue (the only ones a quote can name: published as an enum). */
export const VEHICLE_CLASS_CODES = ['sedan', 'suv', 'van'] as const;

export const VEHICLE_CLASSES: readonly VehicleClass[] = [
  { code: 'sedan', name: 'Sedan', maxPassengers: 3 },
  { code: 'suv', name: 'SUV', maxPassengers: 5 },
  { code: 'van', name: 'Van', maxPassengers: 9 },
];

/** Sedan fare in whole baht and minutes between two zones; SUV is 1.3x, van 1.6x. */
const ZONE_FARES: ReadonlyArray<readonly [string, string, number, number]> = [
  ['BKK', 'BKK-CITY', 1_200, 45],
  ['DMK', 'BKK-CITY', 1_000, 40],
  ['BKK', 'DMK', 1_400, 60],
  ['BKK', 'PATTAYA', 2_400, 110],
  ['DMK', 'PATTAYA', 2_900, 140],
  ['BKK-CITY', 'PATTAYA', 2_200, 130],
  ['HKT', 'PHUKET-WEST', 1_000, 50],
  ['HKT', 'PHUKET-TOWN', 800, 40],
  ['PHUKET-WEST', 'PHUKET-TOWN', 500, 25],
  ['BKK-CITY', 'BKK-CITY', 600, 30],
  ['PATTAYA', 'PATTAYA', 400, 20],
  ['PHUKET-WEST', 'PHUKET-WEST', 400, 20],
];
const CLASS_FACTOR: Readonly<Record<string, number>> = { sedan: 1, suv: 1.3, van: 1.6 };

/** Rides within Phuket's and Pattaya's zones are driven by the on-request operator, the rest by the instant one. */
const ON_REQUEST_ZONES = new Set(['PATTAYA', 'HKT', 'PHUKET-WEST', 'PHUKET-TOWN']);
const transferOperatorOf = (fromZone: string, toZone: string): string =>
  (ON_REQUEST_ZONES.has(fromZone) && ON_REQUEST_ZONES.has(toZone) ? TRANSFER_OPERATORS[1]! : TRANSFER_OPERATORS[0]!).code;

export const TRANSFER_FARES: readonly TransferFare[] = ZONE_FARES.flatMap(([fromZone, toZone, baht, minutes]) =>
  VEHICLE_CLASSES.map((v) => ({
    operatorCode: transferOperatorOf(fromZone, toZone),
    fromZone,
    toZone,
    vehicleClass: v.code,
    baseFare: { amount: Math.round(baht * CLASS_FACTOR[v.code]!) * 100, currency: THB },
    durationMinutes: minutes,
  })),
);

/** Routes served in both directions: operator, duration, seats, fare in baht, departures. */
const ROUTES: ReadonlyArray<readonly [string, string, string, number, number, number, readonly string[]]> = [
  ['bangkok', 'chiangmai', 'Northern Star Express', 600, 32, 850, ['07:00', '19:30', '21:00']],
  ['bangkok', 'pattaya', 'Gulf Coast Coaches', 150, 40, 180, ['06:00', '09:00', '12:00', '15:00', '18:00']],
  ['bangkok', 'huahin', 'Royal Beach Line', 210, 36, 250, ['07:30', '11:30', '16:30']],
  ['bangkok', 'phuket', 'Andaman VIP', 780, 24, 1_100, ['18:00', '19:30']],
  ['bangkok', 'khonkaen', 'Isan Express', 420, 36, 480, ['08:00', '13:00', '22:00']],
  ['chiangmai', 'khonkaen', 'Isan Express', 720, 32, 720, ['08:30', '20:00']],
];

export const SCHEDULES: readonly BusSchedule[] = ROUTES.flatMap(([a, b, operator, minutes, seats, baht, times]) =>
  [
    [a, b],
    [b, a],
  ].map(([from, to]) => ({
    id: `sch_${from}_${to}`,
    fromCityId: `cty_${from}`,
    toCityId: `cty_${to}`,
    operatorCode: operatorCodeOf(operator),
    departureTimes: times,
    utcOffsetMinutes: BANGKOK_TIME,
    durationMinutes: minutes,
    seatCapacity: seats,
    baseFare: { amount: baht * 100, currency: THB },
  })),
);

/** Every transfer operator's fleet: the demo's number of each vehicle class per pickup hour. */
export const FLEETS: readonly FleetEntry[] = TRANSFER_OPERATORS.flatMap((o) =>
  VEHICLE_CLASSES.map((v) => ({ operatorCode: o.code, vehicleClass: v.code, vehicles: DEMO_FLEET_VEHICLES })),
);

export const THAILAND_CATALOGUE: Catalogue = {
  operators: [...TRANSFER_OPERATORS, ...BUS_OPERATORS],
  fleets: FLEETS,
  locations: LOCATIONS,
  cities: CITIES,
  vehicleClasses: VEHICLE_CLASSES,
  transferFares: TRANSFER_FARES,
  schedules: SCHEDULES,
};
