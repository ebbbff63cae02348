import type { VehicleClaim } from './quote.js';

/** Seats left per trip, and vehicles left per transfer operator, class and pickup hour. */
export interface TripInventory {
  /**
   * Seats left on each trip; a trip nobody has booked yet has its full capacity. Reading never
   * creates anything.
   */
  seatsLeft(trips: ReadonlyArray<{ readonly tripId: string; readonly capacity: number }>): Promise<Map<string, number>>;
  /**
   * Vehicles of the class the operator has left in the pickup hour: its fleet (0 when it has none
   * of the class) less the orders that hold one (`STOCK_HOLDING_STATUSES`), never below 0.
   */
  vehiclesLeft(slot: VehicleClaim): Promise<number>;
}
