import type { CatalogueReader } from '../../domain/catalogue/catalogue.port.js';
import type { City } from '../../domain/catalogue/catalogue.js';
import { foldForSearch } from '../../domain/shared/text.js';

/** Public autocomplete over express-bus cities. */
export class SearchCities {
  constructor(private readonly catalogue: CatalogueReader) {}

  async execute(query: string, limit: number): Promise<City[]> {
    const folded = foldForSearch(query);
    if (folded === '') return [];
    return this.catalogue.searchCities(folded, limit);
  }
}
