/** Seats left per trip. */
export interface TripInventory {
  /**
   * Seats left on each trip; a trip nobody has booked yet has its full capacity. Reading never
   * creates anything.
   */
  seatsLeft(trips: ReadonlyArray<{ readonly tripId: string; readonly capacity: number }>): Promise<Map<string, number>>;
}
