import { checkFleetOperator, type FleetEntry, type Operator } from '../../domain/catalogue/operator.js';
import type { OperatorDirectory } from '../../domain/catalogue/operator-directory.port.js';
import { DomainError } from '../../domain/shared/errors.js';
import { fleetKey, type MemoryCatalogue } from './catalogue.memory.js';

/** Operators and fleets in the memory catalogue; each check-and-write runs without an await in between. */
export class MemoryOperatorDirectory implements OperatorDirectory {
  constructor(private readonly store: MemoryCatalogue) {}

  async create(operator: Operator): Promise<Operator> {
    if (this.store.catalogue.operators.has(operator.code)) throw new DomainError('operator-exists');
    this.store.catalogue.operators.set(operator.code, operator);
    return operator;
  }

  async find(code: string): Promise<Operator | null> {
    return this.store.catalogue.operators.get(code) ?? null;
  }

  async list(): Promise<Operator[]> {
    return [...this.store.catalogue.operators.values()].sort((a, b) => cmp(a.code, b.code));
  }

  async setFleet(entry: FleetEntry): Promise<FleetEntry | null> {
    if (!this.store.catalogue.operators.has(entry.operatorCode)) return null;
    const { schedules, transferFares } = this.store.catalogue;
    checkFleetOperator({
      busSchedules: [...schedules.values()].some((s) => s.operatorCode === entry.operatorCode),
      transferFares: [...transferFares.values()].some((f) => f.operatorCode === entry.operatorCode),
    });
    if (!this.store.catalogue.vehicleClasses.has(entry.vehicleClass)) {
      throw new DomainError('invalid-request', {
        message: `Unknown vehicle class ${entry.vehicleClass}.`,
        details: { errors: [{ path: 'vehicleClass', message: 'must be a vehicle class of the catalogue' }] },
      });
    }
    const stored = { operatorCode: entry.operatorCode, vehicleClass: entry.vehicleClass, vehicles: entry.vehicles };
    this.store.catalogue.fleets.set(fleetKey(entry.operatorCode, entry.vehicleClass), stored);
    return stored;
  }

  async fleetOf(code: string): Promise<FleetEntry[]> {
    return [...this.store.catalogue.fleets.values()]
      .filter((f) => f.operatorCode === code)
      .sort((a, b) => cmp(a.vehicleClass, b.vehicleClass));
  }
}

const cmp = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);
