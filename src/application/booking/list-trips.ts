import type { TariffReader } from '../../domain/catalogue/tariff.port.js';
import { requireEntitlement } from '../../domain/identity/authenticate-agent.js';
import type { AgentPrincipal } from '../../domain/identity/principal.js';
import { termsOf, unitPrice } from '../../domain/booking/pricing.js';
import type { TripInventory } from '../../domain/booking/trip-inventory.port.js';
import { isCalendarDate, tripsOn, withinHorizon, type Trip } from '../../domain/booking/trip.js';
import type { Clock } from '../../domain/shared/clock.port.js';
import { DomainError } from '../../domain/shared/errors.js';
import type { Money } from '../../domain/shared/money.js';
import { bookableBy, type ConfirmationMode, type OperatorRef } from '../../domain/catalogue/operator.js';

/** A trip as an agent sees it: with its operator, seats left and its own price per seat. */
export interface TripOffer extends Trip {
  readonly operator: OperatorRef;
  readonly confirmation: ConfirmationMode;
  readonly seatsLeft: number;
  readonly price: Money;
}

/**
 * The express-bus trips between two cities on a local date that have not departed yet, with
 * seats left and the caller's channel price per seat.
 */
export class ListTrips {
  constructor(
    private readonly tariffs: TariffReader,
    private readonly inventory: TripInventory,
    private readonly clock: Clock,
  ) {}

  async execute(principal: AgentPrincipal, input: { fromCityId: string; toCityId: string; date: string }): Promise<TripOffer[]> {
    requireEntitlement(principal, 'express-bus');
    if (!isCalendarDate(input.date)) {
      throw new DomainError('invalid-request', {
        message: 'date must be a calendar date YYYY-MM-DD.',
        details: {
          errors: [{ path: 'date', message: 'must be a calendar date YYYY-MM-DD' }],
        },
      });
    }
    const now = this.clock.now();
    const schedules = await this.tariffs.schedulesBetween(input.fromCityId, input.toCityId);
    const terms = termsOf(principal);
    const trips = schedules
      .flatMap((schedule) => tripsOn(schedule, input.date).map((trip) => ({ trip, price: unitPrice(schedule.baseFare, terms) })))
      .filter(({ trip }) => trip.departsAt.getTime() > now.getTime() && withinHorizon(trip.departsAt, now))
      .sort((a, b) => a.trip.departsAt.getTime() - b.trip.departsAt.getTime() || (a.trip.id < b.trip.id ? -1 : 1));
    if (trips.length === 0) return [];
    const [seats, operators] = await Promise.all([
      this.inventory.seatsLeft(
        trips.map(({ trip }) => ({ tripId: trip.id, capacity: trip.seatCapacity })),
        now,
        principal.livemode,
      ),
      this.tariffs.findOperators([...new Set(trips.map(({ trip }) => trip.operatorCode))]),
    ]);
    const byCode = new Map(operators.map((o) => [o.code, o]));
    return trips.flatMap(({ trip, price }) => {
      const operator = byCode.get(trip.operatorCode);
      // Storage keeps every schedule on an operator (a foreign key): a missing one is a broken catalogue.
      if (operator === undefined) throw new Error(`catalogue names an unknown operator ${trip.operatorCode}`);
      if (!bookableBy(operator, principal.livemode)) return [];
      return {
        ...trip,
        operator: { code: operator.code, name: operator.name },
        confirmation: operator.confirmation,
        seatsLeft: seats.get(trip.id) ?? trip.seatCapacity,
        price,
      };
    });
  }
}
