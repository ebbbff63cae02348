import type { VehicleClaim } from './quote.js';

/**
 * Seats left per trip, and vehicles left per transfer operator, class and pickup hour, at a
 * moment: the orders holding stock then (`holdsStockAt`) are counted, so a hold that lapsed before
 * `at` is not. Live and sandbox stock are apart (CONTRACT §6.7): `livemode` counts only the orders
 * of that mode, so a sandbox selling out a trip leaves its live seats as they were.
 */
export interface TripInventory {
  /** Seats left on each trip at `at`; a trip nobody has booked has its full capacity. Reading never creates anything. */
  seatsLeft(
    trips: ReadonlyArray<{ readonly tripId: string; readonly capacity: number }>,
    at: Date,
    livemode: boolean,
  ): Promise<Map<string, number>>;
  /** Vehicles of the class the operator has left in the pickup hour at `at`: its fleet (0 when it has none of the class) less the orders holding one, never below 0. */
  vehiclesLeft(slot: VehicleClaim, at: Date, livemode: boolean): Promise<number>;
}
