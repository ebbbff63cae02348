import type { VehicleClaim } from '../../domain/booking/quote.js';
import type { TripInventory } from '../../domain/booking/trip-inventory.port.js';
import { COUNT_HOUR } from './order-repo.knex.js';
import { rows } from './sql.js';
import { KnexStore } from './knex-store.js';

/**
 * Seats left per trip on PostgreSQL (a trip without a row has never been booked), and vehicles
 * left per transfer hour, counted as a booking counts them.
 */
export class KnexTripInventory extends KnexStore implements TripInventory {
  async seatsLeft(trips: ReadonlyArray<{ readonly tripId: string; readonly capacity: number }>): Promise<Map<string, number>> {
    const left = new Map(trips.map((t) => [t.tripId, t.capacity]));
    if (trips.length === 0) return left;
    const rows = (await this.knex('trip_inventory')
      .select('trip_id', 'seats_left')
      .whereIn(
        'trip_id',
        trips.map((t) => t.tripId),
      )) as Array<{ trip_id: string; seats_left: number }>;
    for (const r of rows) left.set(r.trip_id, r.seats_left);
    return left;
  }

  async vehiclesLeft(slot: VehicleClaim): Promise<number> {
    const [count] = await rows<{ fleet: number | null; held: number | string }>(
      this.knex,
      COUNT_HOUR,
      [slot.operatorCode, slot.vehicleClass, slot.pickupHour],
      'orders.count-hour',
    );
    return Math.max(0, Number(count?.fleet ?? 0) - Number(count?.held ?? 0));
  }
}
