import { checkFleetSize, type FleetEntry } from '../../domain/catalogue/operator.js';
import type { OperatorDirectory } from '../../domain/catalogue/operator-directory.port.js';
import { DomainError } from '../../domain/shared/errors.js';

/**
 * Sets how many vehicles of a class a transfer operator has in each pickup hour; later bookings
 * count against it. `operator-not-found`, or `invalid-request` for an unknown class or a size
 * outside 0..10 000.
 */
export class SetOperatorFleet {
  constructor(private readonly operators: OperatorDirectory) {}

  async execute(input: { operatorCode: string; vehicleClass: string; vehicles: number }): Promise<FleetEntry> {
    checkFleetSize(input.vehicles);
    const set = await this.operators.setFleet(input);
    if (set === null) throw new DomainError('operator-not-found');
    return set;
  }
}
