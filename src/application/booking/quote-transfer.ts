import type { TransferFare, VehicleClass } from '../../domain/catalogue/catalogue.js';
import { bookableBy, pickupHourOf } from '../../domain/catalogue/operator.js';
import { requireEntitlement } from '../../domain/identity/authenticate-agent.js';
import type { AgentPrincipal } from '../../domain/identity/principal.js';
import { termsOf, unitPrice } from '../../domain/booking/pricing.js';
import { requireFuture, vehicleSoldOut, type Quote } from '../../domain/booking/quote.js';
import { withinHorizon } from '../../domain/booking/trip.js';
import { DomainError } from '../../domain/shared/errors.js';
import { type PricedOffer, ProductQuote, requireOperator } from './quote-policy.js';

/** What an airport-transfer quote asks for. */
export interface TransferQuoteRequest {
  readonly fromLocationId: string;
  readonly toLocationId: string;
  readonly pickupAt: Date;
  readonly passengers: number;
  readonly vehicleClass?: string | undefined;
}

/**
 * Prices an airport transfer for the caller: the fare between the two locations' zones for the
 * requested vehicle class (or the smallest one that carries everybody), through the caller's
 * channel markup and agent discount. The fare's operator must have a vehicle of the class left in
 * the pickup hour (local to the operator), else `sold-out`; the order takes it for good.
 */
export class QuoteTransfer extends ProductQuote {
  async execute(principal: AgentPrincipal, input: TransferQuoteRequest): Promise<Quote> {
    requireEntitlement(principal, 'airport-transfer');
    const now = this.clock.now();
    requireFuture(input.pickupAt, now, 'pickup');
    if (!withinHorizon(input.pickupAt, now)) {
      throw new DomainError('invalid-request', {
        message: 'pickupAt is too far ahead.',
        details: {
          errors: [{ path: 'pickupAt', message: 'must be within 365 days' }],
        },
      });
    }
    if (input.fromLocationId === input.toLocationId) {
      throw new DomainError('invalid-request', {
        message: 'Pick-up and drop-off must differ.',
        details: {
          errors: [{ path: 'toLocationId', message: 'must differ from fromLocationId' }],
        },
      });
    }
    const found = await this.tariffs.findLocations([input.fromLocationId, input.toLocationId]);
    const from = found.find((l) => l.id === input.fromLocationId);
    const to = found.find((l) => l.id === input.toLocationId);
    if (from === undefined || to === undefined) {
      throw new DomainError('location-not-found', {
        message: `No location ${from === undefined ? input.fromLocationId : input.toLocationId}.`,
      });
    }
    const [fares, classes] = await Promise.all([this.tariffs.transferFares(from.zone, to.zone), this.tariffs.vehicleClasses()]);
    const { fare, vehicle: chosen } = chooseFare(fares, classes, input.passengers, input.vehicleClass);
    const operator = await requireOperator(this.tariffs, fare.operatorCode);
    // A sandbox operator's fare is not a live agent's to book.
    if (!bookableBy(operator, principal.livemode)) throw new DomainError('no-fare');
    const vehicle = { operatorCode: operator.code, vehicleClass: chosen.code, pickupHour: pickupHourOf(input.pickupAt, operator.timezone) };
    const left = await this.inventory.vehiclesLeft(vehicle, now, principal.livemode);
    if (left < 1) throw vehicleSoldOut(chosen.code);
    const price = unitPrice(fare.baseFare, termsOf(principal));
    const offer: PricedOffer = {
      product: 'airport-transfer',
      price,
      baseFare: fare.baseFare,
      startsAt: input.pickupAt,
      details: {
        fromLocationId: from.id,
        toLocationId: to.id,
        pickupAt: input.pickupAt.toISOString(),
        passengers: input.passengers,
        vehicleClass: chosen.code,
        durationMinutes: fare.durationMinutes,
      },
      seats: null,
      vehicle,
    };
    return this.keep(principal, offer, operator, now);
  }
}

/**
 * The requested class must exist and carry the passengers; without one, the smallest class that
 * carries them and has a fare on this route is taken.
 */
export const chooseFare = (
  fares: readonly TransferFare[],
  classes: readonly VehicleClass[],
  passengers: number,
  requested: string | undefined,
): { fare: TransferFare; vehicle: VehicleClass } => {
  if (fares.length === 0) throw new DomainError('no-fare');
  if (requested !== undefined) {
    const vehicle = classes.find((v) => v.code === requested);
    if (vehicle === undefined) {
      throw new DomainError('invalid-request', {
        message: `Unknown vehicle class ${requested}.`,
        details: {
          errors: [{ path: 'vehicleClass', message: `must be one of: ${classes.map((v) => v.code).join(', ')}` }],
        },
      });
    }
    if (vehicle.maxPassengers < passengers) {
      throw new DomainError('invalid-request', {
        message: `A ${vehicle.code} carries at most ${vehicle.maxPassengers} passengers.`,
        details: {
          errors: [{ path: 'passengers', message: `a ${vehicle.code} carries at most ${vehicle.maxPassengers}` }],
        },
      });
    }
    const fare = fares.find((f) => f.vehicleClass === vehicle.code);
    if (fare === undefined) throw new DomainError('no-fare', { message: `There is no ${vehicle.code} fare between these locations.` });
    return { fare, vehicle };
  }
  const sorted = [...classes].sort((a, b) => a.maxPassengers - b.maxPassengers || (a.code < b.code ? -1 : 1));
  for (const vehicle of sorted) {
    const fare = fares.find((f) => f.vehicleClass === vehicle.code);
    if (vehicle.maxPassengers >= passengers && fare !== undefined) return { fare, vehicle };
  }
  throw new DomainError('no-fare', { message: `No vehicle with a fare on this route carries ${passengers} passengers.` });
};
