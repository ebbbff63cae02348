import type { CatalogueCounts, CatalogueWriter } from '../../domain/catalogue/catalogue.port.js';
import type { Catalogue } from '../../domain/catalogue/catalogue.js';

/** Loads a catalogue (the shipped demo one by default); loading twice changes nothing. */
export class SeedCatalogue {
  constructor(
    private readonly writer: CatalogueWriter,
    private readonly catalogue: Catalogue,
  ) {}

  execute(): Promise<CatalogueCounts> {
    return this.writer.load(this.catalogue);
  }
}
