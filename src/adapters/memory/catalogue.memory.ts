import type { Catalogue, City, Location } from '../../domain/catalogue/catalogue.js';
import type { CatalogueCounts, CatalogueReader, CatalogueWriter } from '../../domain/catalogue/catalogue.port.js';
import type { FleetEntry, Operator } from '../../domain/catalogue/operator.js';
import { foldForSearch } from '../../domain/shared/text.js';

/** The key of a fleet entry in the memory catalogue. */
export const fleetKey = (operatorCode: string, vehicleClass: string): string => `${operatorCode}|${vehicleClass}`;

/** The catalogue in process memory, searched with the same folding and order as PostgreSQL. */
export class MemoryCatalogue implements CatalogueReader, CatalogueWriter {
  /** The vehicles of a class the operator has per pickup hour (0 without a fleet entry). */
  fleetSize(operatorCode: string, vehicleClass: string): number {
    return this.catalogue.fleets.get(fleetKey(operatorCode, vehicleClass))?.vehicles ?? 0;
  }

  readonly catalogue = {
    locations: new Map<string, Location>(),
    cities: new Map<string, City>(),
    vehicleClasses: new Map<string, Catalogue['vehicleClasses'][number]>(),
    transferFares: new Map<string, Catalogue['transferFares'][number]>(),
    schedules: new Map<string, Catalogue['schedules'][number]>(),
    operators: new Map<string, Operator>(),
    /** By `operator|class`. */
    fleets: new Map<string, FleetEntry>(),
  };

  async searchLocations(foldedQuery: string, limit: number): Promise<Location[]> {
    return rank([...this.catalogue.locations.values()], (l) => foldForSearch(`${l.name} ${l.code} ${l.city}`), foldedQuery, limit);
  }

  async searchCities(foldedQuery: string, limit: number): Promise<City[]> {
    return rank([...this.catalogue.cities.values()], (c) => foldForSearch(c.name), foldedQuery, limit);
  }

  async load(catalogue: Catalogue): Promise<CatalogueCounts> {
    for (const o of catalogue.operators) this.catalogue.operators.set(o.code, o);
    for (const f of catalogue.fleets) {
      const key = fleetKey(f.operatorCode, f.vehicleClass);
      if (!this.catalogue.fleets.has(key)) this.catalogue.fleets.set(key, f);
    }
    for (const l of catalogue.locations) this.catalogue.locations.set(l.id, l);
    for (const c of catalogue.cities) this.catalogue.cities.set(c.id, c);
    for (const v of catalogue.vehicleClasses) this.catalogue.vehicleClasses.set(v.code, v);
    for (const f of catalogue.transferFares) this.catalogue.transferFares.set(`${f.fromZone}|${f.toZone}|${f.vehicleClass}`, f);
    for (const s of catalogue.schedules) this.catalogue.schedules.set(s.id, s);
    return {
      locations: this.catalogue.locations.size,
      cities: this.catalogue.cities.size,
      schedules: this.catalogue.schedules.size,
      operators: this.catalogue.operators.size,
    };
  }
}

function rank<T extends { id: string; name: string }>(items: T[], text: (t: T) => string, q: string, limit: number): T[] {
  return items
    .map((item) => ({ item, at: text(item).indexOf(q), t: text(item) }))
    .filter((x) => x.at >= 0)
    .sort((a, b) => (a.t.startsWith(q) ? 0 : 1) - (b.t.startsWith(q) ? 0 : 1) || cmp(a.item.name, b.item.name) || cmp(a.item.id, b.item.id))
    .slice(0, limit)
    .map((x) => x.item);
}

// Byte order, as PostgreSQL's C collation would; the contract suite pins the order of ties.
const cmp = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);
