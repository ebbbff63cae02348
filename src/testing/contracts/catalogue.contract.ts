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

    it('when the catalogue is loaded twice, then the counts do not change', async () => {
      const again = await c.load(THAILAND_CATALOGUE);
      expect(again).to.deep.equal({
        locations: THAILAND_CATALOGUE.locations.length,
        cities: THAILAND_CATALOGUE.cities.length,
        schedules: THAILAND_CATALOGUE.schedules.length,
      });
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
