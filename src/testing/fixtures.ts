import { randomBytes } from 'node:crypto';
import type { Order } from '../domain/booking/order.js';
import type { ApiKeyRecord } from '../domain/identity/api-key.js';
import { catalogueOf, type BusSchedule, type Location } from '../domain/catalogue/catalogue.js';
import type { CatalogueWriter } from '../domain/catalogue/catalogue.port.js';
import type { Operator } from '../domain/catalogue/operator.js';
import { DomainError } from '../domain/shared/errors.js';
import type { Initiator } from '../domain/wallet/transaction.js';

/** The records and helpers the contract suites build their cases from. */

/** A short unique suffix so tests on one database never collide. */
export const unique = (): string => randomBytes(5).toString('hex').toUpperCase();

/** The `reason` a promise rejects with, or `'resolved'`; anything but a DomainError is rethrown. */
export const reasonOf = async (p: Promise<unknown>): Promise<string> => {
  try {
    await p;
    return 'resolved';
  } catch (err) {
    if (err instanceof DomainError) return err.reason;
    throw err;
  }
};

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
  vehicle: null,
  operatorCode: null,
  operatorTerms: { confirmation: 'instant', confirmationWindowMinutes: 120 },
  startsAt: new Date(Date.now() + 86_400_000),
  createdAt: new Date(),
  holdExpiresAt: null,
  confirmationDeadline: null,
  confirmedAt: new Date(),
  operatorReference: null,
  rejectionReason: null,
  releaseReason: null,
  cancelledAt: null,
  cancelledBy: null,
  terms: { freeCancellationHours: 24, lateCancellationFeeBps: 5000 },
  refund: null,
  fee: null,
  livemode: true,
});

/** A local date `days` ahead of today (UTC), as `YYYY-MM-DD`. */
export const dateAhead = (days: number): string => new Date(Date.now() + days * 86_400_000).toISOString().slice(0, 10);

/** Schedules this process loaded, so that they can be removed and the shipped catalogue's counts hold. */
const createdSchedules = new Set<string>();

/** The ids of the schedules `buildSchedule` loaded since the last call (each id is handed out once). */
export function takeLoadedSchedules(): string[] {
  const ids = [...createdSchedules];
  createdSchedules.clear();
  return ids;
}

/** An operator of its own for a test (instant unless told, in Bangkok time). */
export const buildOperator = (overrides: Partial<Operator> = {}): Operator => {
  const id = unique();
  return {
    code: `TEST-${id}`,
    name: `Test Coaches ${id}`,
    timezone: 'Asia/Bangkok',
    confirmation: 'instant',
    confirmationWindowMinutes: 120,
    livemode: true,
    ...overrides,
  };
};

/**
 * Loads a bus schedule of its own (Bangkok → Pattaya, one daily departure at 10:00 Bangkok time)
 * with the given capacity and fare, through the catalogue writer, run by an operator of its own
 * (`operator`, loaded with it). The demo catalogue's cities must be loaded first.
 */
export async function buildSchedule(
  writer: CatalogueWriter,
  overrides: Partial<Pick<BusSchedule, 'seatCapacity' | 'departureTimes'>> & { baseAmount?: number; operator?: Operator } = {},
): Promise<BusSchedule & { readonly operator: Operator }> {
  const operator = overrides.operator ?? buildOperator();
  const schedule: BusSchedule = {
    id: `sch_test_${unique().toLowerCase()}`,
    fromCityId: 'cty_bangkok',
    toCityId: 'cty_pattaya',
    operatorCode: operator.code,
    departureTimes: overrides.departureTimes ?? ['10:00'],
    utcOffsetMinutes: 420,
    durationMinutes: 150,
    seatCapacity: overrides.seatCapacity ?? 40,
    baseFare: { amount: overrides.baseAmount ?? 18_000, currency: 'THB' },
  };
  await writer.load(catalogueOf({ operators: [operator], schedules: [schedule] }));
  createdSchedules.add(schedule.id);
  return { ...schedule, operator };
}

/** A transfer operator of its own for a test, with a route of its own between two locations it alone drives. */
export interface TestTransferRoute {
  readonly operator: Operator;
  readonly fromLocationId: string;
  readonly toLocationId: string;
}

/**
 * Loads an operator of its own (instant and in Bangkok time unless told) with `vehicles` of each
 * shipped vehicle class per pickup hour, and two locations in zones of their own with a fare it
 * drives (sedan 500.00 THB, SUV 650.00, van 800.00). The demo catalogue's vehicle classes must
 * be loaded first.
 */
export async function buildTransferRoute(
  writer: CatalogueWriter,
  options: { vehicles?: number; operator?: Partial<Operator> } = {},
): Promise<TestTransferRoute> {
  const id = unique();
  const operator = buildOperator({ code: `TEST-T-${id}`, name: `Test Transfers ${id}`, ...options.operator });
  const zone = (side: string): string => `TEST-${id}-${side}`;
  const location = (side: string): Location => ({
    id: `loc_test_${id.toLowerCase()}_${side.toLowerCase()}`,
    code: `T${side}`,
    name: `Fleet Test Point ${id} ${side}`,
    type: 'district',
    city: 'Testville',
    country: 'Thailand',
    zone: zone(side),
  });
  const classes = [
    ['sedan', 50_000],
    ['suv', 65_000],
    ['van', 80_000],
  ] as const;
  await writer.load(
    catalogueOf({
      operators: [operator],
      fleets: classes.map(([vehicleClass]) => ({ operatorCode: operator.code, vehicleClass, vehicles: options.vehicles ?? 4 })),
      locations: [location('A'), location('B')],
      transferFares: classes.map(([vehicleClass, amount]) => ({
        operatorCode: operator.code,
        fromZone: zone('A'),
        toZone: zone('B'),
        vehicleClass,
        baseFare: { amount, currency: 'THB' },
        durationMinutes: 30,
      })),
    }),
  );
  return { operator, fromLocationId: location('A').id, toLocationId: location('B').id };
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

/** A new id with a type prefix, in the shape the service makes. */
export const testId = (prefix: 'usr' | 'tnt' | 'txn' | 'cli'): string => `${prefix}_${randomBytes(13).toString('hex').toUpperCase()}`;

/** A tenant of the ledger tests: its id, client and two fresh users. */
export interface LedgerTenant {
  readonly tenantId: string;
  readonly clientId: string;
  readonly currency: string;
  newUser(): string;
}

export const ledgerTenant = (currency = 'THB'): LedgerTenant => ({
  tenantId: testId('tnt'),
  clientId: testId('cli'),
  currency,
  newUser: () => testId('usr'),
});

/** The initiator of a tenant's backend call. */
export const machineInitiator = (t: LedgerTenant): Initiator => ({
  kind: 'machine',
  tenantId: t.tenantId,
  clientId: t.clientId,
  userId: null,
  amr: null,
  act: null,
});

/** The initiator of a wallet user's call (delegated by default). */
export const userInitiator = (t: LedgerTenant, userId: string, amr: readonly string[] = ['tenant_delegated']): Initiator => ({
  kind: 'user',
  tenantId: t.tenantId,
  clientId: t.clientId,
  userId,
  amr,
  act: amr.includes('tenant_delegated') ? { sub: t.clientId } : null,
});

/** A unique idempotency key. */
export const idemKey = (): string => `idem-${unique()}-${unique()}`;

/** An ACTIVE API key record of `agentId` with no expiry, a unique id and hash, with the given fields changed. */
export const keyRecordOf = (agentId: string, over: Partial<ApiKeyRecord> = {}): ApiKeyRecord => ({
  id: `key_${unique()}`,
  agentId,
  hash: `hash-${unique()}-${unique()}`,
  prefix: 'pbk_test',
  status: 'ACTIVE',
  revokedReason: null,
  createdAt: new Date('2026-01-01T00:00:00.000Z'),
  expiresAt: null,
  revokedAt: null,
  rolledFromKeyId: null,
  name: null,
  scopes: ['*'],
  allowedIps: [],
  createdByKeyId: null,
  ...over,
});
