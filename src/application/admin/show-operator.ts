import type { FleetEntry, Operator } from '../../domain/catalogue/operator.js';
import type { OperatorDirectory } from '../../domain/catalogue/operator-directory.port.js';
import { DomainError } from '../../domain/shared/errors.js';

/** One operator with its fleet (vehicles per class and pickup hour; empty for a bus operator). */
export interface OperatorDetails extends Operator {
  readonly fleet: ReadonlyArray<Pick<FleetEntry, 'vehicleClass' | 'vehicles'>>;
}

/** Shows one operator; `operator-not-found` when there is none. */
export class ShowOperator {
  constructor(private readonly operators: OperatorDirectory) {}

  async execute(code: string): Promise<OperatorDetails> {
    const [operator, fleet] = await Promise.all([this.operators.find(code), this.operators.fleetOf(code)]);
    if (operator === null) throw new DomainError('operator-not-found');
    return { ...operator, fleet: fleet.map((f) => ({ vehicleClass: f.vehicleClass, vehicles: f.vehicles })) };
  }
}
