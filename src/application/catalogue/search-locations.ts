import type { CatalogueReader } from '../../domain/catalogue/catalogue.port.js';
import type { Location } from '../../domain/catalogue/catalogue.js';
import { foldForSearch } from '../../domain/shared/text.js';

/** Public autocomplete over airport-transfer locations. */
export class SearchLocations {
  constructor(private readonly catalogue: CatalogueReader) {}

  async execute(query: string, limit: number): Promise<Location[]> {
    const folded = foldForSearch(query);
    if (folded === '') return [];
    return this.catalogue.searchLocations(folded, limit);
  }
}
