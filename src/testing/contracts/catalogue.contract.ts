import { expect } from 'chai';
import type { CatalogueReader, CatalogueWriter } from '../../domain/catalogue/catalogue.port.js';
import { THAILAND_CATALOGUE } from '../../adapters/catalogue/thailand.js';
import { foldForSearch } from '../../domain/shared/text.js';

/** Search and loading behaviour every catalogue store must show. */
export function catalogueContract(name: string, make: () => Promise<CatalogueReader & CatalogueWriter>): void {
  describe(`catalogue contract: ${name}`, () => {
    let c: CatalogueReader & CatalogueWriter;
    before(async () => {
      c = await make();
      await c.load(THAILAND_CATALOGUE);
    });

    it('when the catalogue is loaded twice, then its records are there once', async () => {
      const again = await c.load(THAILAND_CATALOGUE);
      // Counts of the whole store: on a shared database, other tests load schedules of their own.
      expect(again.locations).to.be.at.least(THAILAND_CATALOGUE.locations.length);
      expect(again.cities).to.be.at.least(THAILAND_CATALOGUE.cities.length);
      expect(again.schedules).to.be.at.least(THAILAND_CATALOGUE.schedules.length);
      for (const city of THAILAND_CATALOGUE.cities) {
        const found = (await c.searchCities(foldForSearch(city.name), 50)).filter((x) => x.id === city.id);
        expect(found, city.id).to.have.length(1);
      }
    });

    it('when searching by IATA code, then the airport comes first', async () => {
      const found = await c.searchLocations(foldForSearch('bkk'), 5);
      expect(found[0]?.name).to.equal('Suvarnabhumi Airport');
    });

    it('when searching without accents or case, then accented names match', async () => {
      const found = await c.searchLocations(foldForSearch('HOTEL CAFE'), 10);
      expect(found.map((l) => l.name)).to.include('Hôtel Café Sukhumvit');
    });

    it('when a query matches at the start and in the middle, then prefix matches come first, then by name', async () => {
      const found = await c.searchLocations(foldForSearch('sukhumvit'), 10);
      expect(found.map((l) => l.name)).to.deep.equal(['Sukhumvit', 'Hôtel Café Sukhumvit']);
    });

    it('when the limit is smaller than the matches, then only that many come back', async () => {
      expect(await c.searchLocations(foldForSearch('a'), 3)).to.have.length(3);
    });

    it('when a query contains LIKE wildcards, then they match literally', async () => {
      expect(await c.searchLocations('%', 10)).to.deep.equal([]);
      expect(await c.searchCities('_', 10)).to.deep.equal([]);
    });

    it('when cities are searched, then substring matches of the name are found', async () => {
      expect((await c.searchCities(foldForSearch('mai'), 10)).map((x) => x.name)).to.deep.equal(['Chiang Mai']);
      expect((await c.searchCities(foldForSearch('k'), 10)).map((x) => x.name)).to.deep.equal(['Khon Kaen', 'Bangkok', 'Phuket']);
    });
  });
}
