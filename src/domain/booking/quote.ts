import type { ConfirmationMode, OperatorRef } from '../catalogue/operator.js';
import type { Product } from '../identity/agent.js';
import type { AgentPrincipal } from '../identity/principal.js';
import { DomainError } from '../shared/errors.js';
import type { Money } from '../shared/money.js';

/** What an airport-transfer quote is for. */
export interface TransferDetails {
  readonly fromLocationId: string;
  readonly toLocationId: string;
  readonly pickupAt: string;
  readonly passengers: number;
  readonly vehicleClass: string;
  readonly durationMinutes: number;
}

/** What an express-bus quote is for. */
export interface BusDetails {
  readonly tripId: string;
  readonly fromCityId: string;
  readonly toCityId: string;
  /** The operator's name (its code and name are the quote's `operator`). */
  readonly operator: string;
  readonly departsAt: string;
  readonly arrivesAt: string;
  readonly passengers: number;
  /** The caller's price per seat; `price` is this times `passengers`. */
  readonly unitPrice: Money;
}

/** Seats a bus quote needs on one trip, with the trip's capacity for its inventory row. */
export interface SeatClaim {
  readonly tripId: string;
  readonly scheduleId: string;
  readonly departsAt: Date;
  readonly capacity: number;
  readonly seats: number;
}

/**
 * The vehicle a transfer quote needs: one of the operator's class in the local pickup hour
 * (`pickupHourOf`). How many there are is the operator's fleet when the order is placed.
 */
export interface VehicleClaim {
  readonly operatorCode: string;
  readonly vehicleClass: string;
  readonly pickupHour: Date;
}

/** A price offered to one agent on one channel, valid until `expiresAt`. */
export interface Quote {
  readonly id: string;
  readonly agentId: string;
  /** The channel the key resolved to when the quote was minted. */
  readonly channelCode: string;
  readonly keyId: string;
  readonly product: Product;
  readonly price: Money;
  /** What the operator gets of the price: the base fare (of every seat). Absent on quotes made before it was kept. */
  readonly baseFare?: Money;
  /** When the service starts: the pickup or the departure. Cancellation closes then. */
  readonly startsAt: Date;
  readonly expiresAt: Date;
  readonly createdAt: Date;
  readonly details: TransferDetails | BusDetails;
  /** For bus quotes, the seats an order takes; null for transfers. */
  readonly seats: SeatClaim | null;
  /** For transfer quotes, the vehicle an order takes; null for buses. */
  readonly vehicle: VehicleClaim | null;
  /** Who runs the trip or drives the transfer, and how it confirms. */
  readonly operator: OperatorRef;
  readonly confirmation: ConfirmationMode;
  /** False for a sandbox agent's quote: its agent's mode (CONTRACT §6.7). */
  readonly livemode: boolean;
}

/**
 * Whether the caller may book this quote now: it must have been minted for the channel the key
 * resolves to today (a quote priced for another channel is never honoured), and not be past its
 * expiry. Ownership (`requireOwnQuote`) is checked before this.
 */
export const checkQuoteBookable = (quote: Quote, principal: AgentPrincipal, now: Date): void => {
  if (quote.channelCode !== principal.channel.code) {
    throw new DomainError('quote-channel-mismatch');
  }
  if (now.getTime() >= quote.expiresAt.getTime()) {
    throw new DomainError('quote-expired');
  }
};

/** The refusal of seats a trip no longer has (`sold-out`): `left` of them remain, fewer than asked. */
export const seatsSoldOut = (left: number): DomainError =>
  new DomainError('sold-out', { message: `Only ${left} seats are left on this trip.`, details: { seatsLeft: left } });

/** The refusal of a vehicle class of which a pickup hour has none left (`sold-out`). */
export const vehicleSoldOut = (vehicleClass: string): DomainError =>
  new DomainError('sold-out', { message: `No ${vehicleClass} is left for this pickup hour.`, details: { vehiclesLeft: 0 } });

/** The service of a quote must still be ahead when the quote is minted. */
export const requireFuture = (startsAt: Date, now: Date, what: 'pickup' | 'departure'): void => {
  if (startsAt.getTime() <= now.getTime()) {
    if (what === 'departure') {
      throw new DomainError('trip-departed');
    }
    throw new DomainError('invalid-request', {
      message: 'pickupAt must be in the future.',
      details: {
        errors: [{ path: 'pickupAt', message: 'must be in the future' }],
      },
    });
  }
};
