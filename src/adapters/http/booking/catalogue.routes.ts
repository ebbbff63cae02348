import { Router } from 'express';
import type { SearchCities } from '../../../application/catalogue/search-cities.js';
import type { SearchLocations } from '../../../application/catalogue/search-locations.js';
import { parseQuery } from '../validate.js';
import { autocompleteQuery } from './catalogue.schemas.js';

/** The public autocomplete routes: no key needed, any key sent is ignored. */
export function catalogueRoutes(deps: { searchLocations: SearchLocations; searchCities: SearchCities }): Router {
  const router = Router();
  router.get('/airport-transfer/locations', async (req, res) => {
    const { q, limit } = parseQuery(autocompleteQuery, req);
    const found = await deps.searchLocations.execute(q, limit);
    res.setHeader('Cache-Control', 'public, max-age=300');
    res.json({ data: found.map(({ id, code, name, type, city, country }) => ({ id, code, name, type, city, country })) });
  });
  router.get('/express-bus/cities', async (req, res) => {
    const { q, limit } = parseQuery(autocompleteQuery, req);
    const found = await deps.searchCities.execute(q, limit);
    res.setHeader('Cache-Control', 'public, max-age=300');
    res.json({ data: found.map(({ id, name, country }) => ({ id, name, country })) });
  });
  return router;
}
