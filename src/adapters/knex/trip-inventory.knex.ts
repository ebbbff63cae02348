import type { VehicleClaim } from '../../domain/booking/quote.js';
import type { TripInventory } from '../../domain/booking/trip-inventory.port.js';
import { COUNT_HOUR, SEATS_HELD } from './booking-rows.js';
import { rows } from './sql.js';
import { KnexStore } from './knex-store.js';

/** Seats and vehicles left on PostgreSQL, counted from the orders holding them, as a booking counts them. */
export class KnexTripInventory extends KnexStore implements TripInventory {
  async seatsLeft(
    trips: ReadonlyArray<{ readonly tripId: string; readonly capacity: number }>,
    at: Date,
    livemode: boolean,
  ): Promise<Map<string, number>> {
    const left = new Map(trips.map((t) => [t.tripId, t.capacity]));
    if (trips.length === 0) return left;
    const held = await rows<{ trip_id: string; held: number | string }>(this.knex, SEATS_HELD, [trips.map((t) => t.tripId), at, livemode]);
    for (const r of held) left.set(r.trip_id, Math.max(0, (left.get(r.trip_id) ?? 0) - Number(r.held)));
    return left;
  }

  async vehiclesLeft(slot: VehicleClaim, at: Date, livemode: boolean): Promise<number> {
    const [count] = await rows<{ fleet: number | null; held: number | string }>(this.knex, COUNT_HOUR, [
      slot.operatorCode,
      slot.vehicleClass,
      slot.pickupHour,
      at,
      livemode,
    ]);
    return Math.max(0, Number(count?.fleet ?? 0) - Number(count?.held ?? 0));
  }
}
