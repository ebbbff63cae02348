import { operation, type Operation } from '../operation.js';
import { autocompleteQuery, cityListSchema, locationListSchema } from './catalogue.schemas.js';

/** The public autocomplete operations: no key needed, any key sent is ignored. */
export const catalogueOperations: readonly Operation[] = [
  operation({
    surface: 'booking',
    method: 'get',
    path: '/api/v1/airport-transfer/locations',
    operationId: 'searchTransferLocations',
    summary: 'Autocomplete airport-transfer locations (public)',
    description: 'Case- and accent-insensitive prefix and substring search over airports, districts and hotels. No key needed.',
    tags: ['catalogue'],
    token: 'none',
    request: { query: autocompleteQuery },
    examples: () => ({
      query: { q: 'sukhumvit', limit: 5 },
      response: {
        data: [
          { id: 'loc_bkk_sukhumvit', code: 'SKV', name: 'Sukhumvit', type: 'district', city: 'Bangkok', country: 'Thailand' },
          { id: 'loc_bkk_h_sukhumvit', code: 'HCS', name: 'Hôtel Café Sukhumvit', type: 'hotel', city: 'Bangkok', country: 'Thailand' },
        ],
      },
    }),
    responses: {
      200: { description: 'Matching locations, prefix matches first', schema: locationListSchema },
      400: { description: 'Bad query', reasons: ['invalid-request'] },
    },
    handler: async ({ query: { q, limit }, core }) => {
      const found = await core.catalogue.searchLocations.execute(q, limit);
      return {
        status: 200,
        headers: { 'Cache-Control': 'public, max-age=300' },
        body: { data: found.map(({ id, code, name, type, city, country }) => ({ id, code, name, type, city, country })) },
      };
    },
  }),
  operation({
    surface: 'booking',
    method: 'get',
    path: '/api/v1/express-bus/cities',
    operationId: 'searchBusCities',
    summary: 'Autocomplete express-bus cities (public)',
    tags: ['catalogue'],
    token: 'none',
    request: { query: autocompleteQuery },
    examples: () => ({
      query: { q: 'patt', limit: 5 },
      response: { data: [{ id: 'cty_pattaya', name: 'Pattaya', country: 'Thailand' }] },
    }),
    responses: {
      200: { description: 'Matching cities', schema: cityListSchema },
      400: { description: 'Bad query', reasons: ['invalid-request'] },
    },
    handler: async ({ query: { q, limit }, core }) => {
      const found = await core.catalogue.searchCities.execute(q, limit);
      return {
        status: 200,
        headers: { 'Cache-Control': 'public, max-age=300' },
        body: { data: found.map(({ id, name, country }) => ({ id, name, country })) },
      };
    },
  }),
];
