import type { BusSchedule, City, Location, TransferFare, VehicleClass } from '../../domain/catalogue/catalogue.js';
import type { Operator } from '../../domain/catalogue/operator.js';
import type { TariffReader } from '../../domain/catalogue/tariff.port.js';
import type { MemoryCatalogue } from './catalogue.memory.js';

/** The priced catalogue over the in-memory catalogue, ordered as PostgreSQL orders it. */
export class MemoryTariffReader implements TariffReader {
  constructor(private readonly store: MemoryCatalogue) {}

  async findLocations(ids: readonly string[]): Promise<Location[]> {
    return ids.map((id) => this.store.catalogue.locations.get(id)).filter((l): l is Location => l !== undefined);
  }

  async findCities(ids: readonly string[]): Promise<City[]> {
    return ids.map((id) => this.store.catalogue.cities.get(id)).filter((c): c is City => c !== undefined);
  }

  async vehicleClasses(): Promise<VehicleClass[]> {
    return [...this.store.catalogue.vehicleClasses.values()].sort((a, b) => a.maxPassengers - b.maxPassengers || cmp(a.code, b.code));
  }

  async transferFares(zoneA: string, zoneB: string): Promise<TransferFare[]> {
    const byClass = new Map<string, TransferFare>();
    for (const f of this.store.catalogue.transferFares.values()) {
      const matches = (f.fromZone === zoneA && f.toZone === zoneB) || (f.fromZone === zoneB && f.toZone === zoneA);
      if (matches && (!byClass.has(f.vehicleClass) || f.fromZone === zoneA)) byClass.set(f.vehicleClass, f);
    }
    return [...byClass.values()].sort((a, b) => cmp(a.vehicleClass, b.vehicleClass));
  }

  async findOperators(codes: readonly string[]): Promise<Operator[]> {
    return codes.map((code) => this.store.catalogue.operators.get(code)).filter((o): o is Operator => o !== undefined);
  }

  async findSchedule(scheduleId: string): Promise<BusSchedule | null> {
    return this.store.catalogue.schedules.get(scheduleId) ?? null;
  }

  async schedulesBetween(fromCityId: string, toCityId: string): Promise<BusSchedule[]> {
    return [...this.store.catalogue.schedules.values()]
      .filter((s) => s.fromCityId === fromCityId && s.toCityId === toCityId)
      .sort((a, b) => cmp(a.id, b.id));
  }
}

const cmp = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);
