import { requireEntitlement } from '../../domain/identity/authenticate-agent.js';
import type { AgentPrincipal } from '../../domain/identity/principal.js';
import { termsOf, totalPrice, unitPrice } from '../../domain/booking/pricing.js';
import { requireFuture, seatsSoldOut, type Quote } from '../../domain/booking/quote.js';
import { parseTripId, tripOfSchedule, withinHorizon } from '../../domain/booking/trip.js';
import { DomainError } from '../../domain/shared/errors.js';
import { type PricedOffer, ProductQuote, requireOperator } from './quote-policy.js';
import { bookableBy } from '../../domain/catalogue/operator.js';

/** What an express-bus quote asks for. */
export interface BusQuoteRequest {
  readonly tripId: string;
  readonly passengers: number;
}

/** Prices seats on one express-bus trip for the caller. */
export class QuoteBusTrip extends ProductQuote {
  async execute(principal: AgentPrincipal, input: BusQuoteRequest): Promise<Quote> {
    requireEntitlement(principal, 'express-bus');
    const now = this.clock.now();
    const ref = parseTripId(input.tripId);
    const schedule = ref === null ? null : await this.tariffs.findSchedule(ref.scheduleId);
    const trip = ref === null || schedule === null ? null : tripOfSchedule(schedule, ref.departsAt);
    if (schedule === null || trip === null || !withinHorizon(trip.departsAt, now)) {
      throw new DomainError('trip-not-found');
    }
    requireFuture(trip.departsAt, now, 'departure');
    const operator = await requireOperator(this.tariffs, schedule.operatorCode);
    if (!bookableBy(operator, principal.livemode)) throw new DomainError('trip-not-found');
    const left =
      (await this.inventory.seatsLeft([{ tripId: trip.id, capacity: trip.seatCapacity }], now, principal.livemode)).get(trip.id) ??
      trip.seatCapacity;
    if (left < input.passengers) throw seatsSoldOut(left);
    const unit = unitPrice(schedule.baseFare, termsOf(principal));
    const offer: PricedOffer = {
      product: 'express-bus',
      price: totalPrice(unit, input.passengers),
      baseFare: totalPrice(schedule.baseFare, input.passengers),
      startsAt: trip.departsAt,
      details: {
        tripId: trip.id,
        fromCityId: trip.fromCityId,
        toCityId: trip.toCityId,
        operator: operator.name,
        departsAt: trip.departsAt.toISOString(),
        arrivesAt: trip.arrivesAt.toISOString(),
        passengers: input.passengers,
        unitPrice: unit,
      },
      seats: { tripId: trip.id, scheduleId: schedule.id, departsAt: trip.departsAt, capacity: trip.seatCapacity, seats: input.passengers },
      vehicle: null,
    };
    return this.keep(principal, offer, operator, now);
  }
}
