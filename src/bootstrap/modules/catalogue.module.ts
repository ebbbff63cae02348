import { ContainerModule } from 'inversify';
import { SearchCities } from '../../application/catalogue/search-cities.js';
import { SearchLocations } from '../../application/catalogue/search-locations.js';
import { SeedCatalogue } from '../../application/catalogue/seed-catalogue.js';
import { THAILAND_CATALOGUE } from '../../adapters/catalogue/thailand.js';
import { catalogueRoutes } from '../../adapters/http/booking/catalogue.routes.js';
import { KnexCatalogue } from '../../adapters/knex/catalogue.knex.js';
import { MemoryCatalogue } from '../../adapters/memory/catalogue.memory.js';
import type { Database } from '../../adapters/knex/database.js';
import { TOKENS } from '../tokens.js';

/** The public catalogue: autocomplete and the shipped demo data. */
export const catalogueModule = (db: Database | null): ContainerModule =>
  new ContainerModule(({ bind }) => {
    const catalogue = db === null ? new MemoryCatalogue() : new KnexCatalogue(db.knex);
    bind(TOKENS.CatalogueReader).toConstantValue(catalogue);
    bind(TOKENS.CatalogueWriter).toConstantValue(catalogue);
    bind(TOKENS.CatalogueData).toConstantValue(THAILAND_CATALOGUE);
    bind(TOKENS.SearchLocations).toResolvedValue((r) => new SearchLocations(r), [TOKENS.CatalogueReader]);
    bind(TOKENS.SearchCities).toResolvedValue((r) => new SearchCities(r), [TOKENS.CatalogueReader]);
    bind(TOKENS.SeedCatalogue).toResolvedValue((w, data) => new SeedCatalogue(w, data), [TOKENS.CatalogueWriter, TOKENS.CatalogueData]);
    bind(TOKENS.BookingPublicRouters).toResolvedValue(
      (searchLocations, searchCities) => catalogueRoutes({ searchLocations, searchCities }),
      [TOKENS.SearchLocations, TOKENS.SearchCities],
    );
  });
