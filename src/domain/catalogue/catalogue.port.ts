import type { Catalogue, City, Location } from './catalogue.js';

/** Reads the public catalogue. */
export interface CatalogueReader {
  /**
   * Returns up to `limit` locations whose name, code or city contains the folded query
   * (see `foldForSearch`); prefix matches first, then by name. Empty list when none match.
   */
  searchLocations(foldedQuery: string, limit: number): Promise<Location[]>;
  /** The same over bus cities, matching the name. */
  searchCities(foldedQuery: string, limit: number): Promise<City[]>;
}

/** Counts of what a catalogue load left in storage. */
export interface CatalogueCounts {
  readonly locations: number;
  readonly cities: number;
  readonly schedules: number;
  readonly operators: number;
}

/** Loads the catalogue. */
export interface CatalogueWriter {
  /**
   * Upserts every item by id in one transaction, so loading twice changes nothing; a fleet entry
   * is only added where the operator has none for the class (one set since is kept).
   */
  load(catalogue: Catalogue): Promise<CatalogueCounts>;
}
