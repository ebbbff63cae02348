import type { FleetEntry, Operator } from './operator.js';

/** The operators of the catalogue and their transfer fleets. */
export interface OperatorDirectory {
  /**
   * Stores a new operator. An operator with that code already (committed or in flight) →
   * DomainError `operator-exists`, and nothing changes; of two concurrent creates of one code
   * exactly one succeeds.
   */
  create(operator: Operator): Promise<Operator>;
  /** The operator with this code, or null. */
  find(code: string): Promise<Operator | null>;
  /** Every operator, by code (byte order). */
  list(): Promise<Operator[]>;
  /**
   * Sets how many vehicles of a class the operator has in each pickup hour (replacing what it
   * had). Returns null, changing nothing, when there is no such operator; an unknown vehicle class,
   * or an operator that runs bus schedules and no transfers (`checkFleetOperator`) → DomainError
   * `invalid-request`. Orders already placed keep their vehicles; later ones count
   * against the new size.
   */
  setFleet(entry: FleetEntry): Promise<FleetEntry | null>;
  /** The operator's fleet, one entry per vehicle class it has set, by class; empty when none. */
  fleetOf(code: string): Promise<FleetEntry[]>;
}
